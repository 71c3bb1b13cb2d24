"""The ring console: web pages for the boxer, the supervisor, surveillance and the players' board."""
