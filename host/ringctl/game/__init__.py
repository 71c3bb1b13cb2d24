"""Two-Up rules engine (pure state machine), spin adjudication and game-script replay."""
