-- A game open to anyone (chosen at creation): listed among the open games
-- and joined by its id. Other games are joined through their invite code.
ALTER TABLE games ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
