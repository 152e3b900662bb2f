-- Games and their moves. Times are milliseconds since the Unix epoch.
-- Released migrations are never edited: add a new file instead.
CREATE TABLE games (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    clock_initial_ms BIGINT,
    clock_increment_ms BIGINT,
    created_at BIGINT NOT NULL,
    -- Bumped by every change: compare-and-swap guard of all writes.
    version BIGINT NOT NULL,
    status TEXT NOT NULL,
    ply BIGINT NOT NULL,
    fen TEXT NOT NULL,
    side_to_move TEXT NOT NULL,
    white_player TEXT NOT NULL,
    white_name TEXT,
    white_token TEXT,
    black_player TEXT NOT NULL,
    black_name TEXT,
    black_token TEXT,
    invite TEXT UNIQUE,
    white_ms BIGINT,
    black_ms BIGINT,
    turn_started_at BIGINT,
    deadline_at BIGINT,
    draw_offer TEXT,
    result TEXT,
    winner TEXT,
    reason TEXT,
    margin BIGINT,
    ai_to_move BIGINT NOT NULL DEFAULT 0,
    ai_claimed_by TEXT,
    ai_claimed_at BIGINT,
    updated_at BIGINT NOT NULL
);
CREATE INDEX games_status ON games (status, updated_at);
CREATE INDEX games_white_token ON games (white_token);
CREATE INDEX games_black_token ON games (black_token);
CREATE INDEX games_ai_to_move ON games (ai_to_move) WHERE ai_to_move = 1;
CREATE INDEX games_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL;

CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply BIGINT NOT NULL,
    notation TEXT NOT NULL,
    played_at BIGINT NOT NULL,
    white_ms BIGINT,
    black_ms BIGINT,
    PRIMARY KEY (game_id, ply)
);

-- When the service (any instance) was last seen alive: the clocks are not
-- charged for the time it was down.
CREATE TABLE service (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id = 1),
    heartbeat_at BIGINT NOT NULL
);
