-- A move of a game with a clock sets deadline_at; indexed, it kept that
-- update from being HOT (see 0005). The clocks' sweep (once a second)
-- finds the fallen flags among the active games through games_status.
DROP INDEX games_deadline;
