-- A finished game's rematch: the side that offers it, and once the other
-- side accepts, the new game (colours swapped).
ALTER TABLE games ADD COLUMN rematch_offer TEXT;
ALTER TABLE games ADD COLUMN rematch_id TEXT;
