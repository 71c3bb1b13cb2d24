# Host packaging only (makes this folder importable as ringctl.fw); never deployed to a board.
