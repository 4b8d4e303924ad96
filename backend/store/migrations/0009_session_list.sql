-- 0009: what the session list shows and does besides the log: a session
-- can be pinned on top of the list, says which session it was copied
-- from, and counts its rounds.
--
-- pinned is 0 or 1; pinning is no activity, so it leaves updated_at.
ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));

-- copied_from is the id of the session this one is a copy of (Duplicate),
-- or ''. No foreign key: the source may be deleted and the copy stays.
ALTER TABLE sessions ADD COLUMN copied_from TEXT NOT NULL DEFAULT '';

-- rounds is how many requests to the model the log holds, compaction's
-- requests for a summary left out: the rounds the timeline shows. The
-- list reads it for every session, so it is kept here by a trigger
-- rather than counted from the log each time, for every writer of the
-- file (Store.Append, a copy, an older Loupe).
ALTER TABLE sessions ADD COLUMN rounds INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0);

UPDATE sessions SET rounds = (
    SELECT count(*) FROM events
    WHERE session_id = sessions.id AND kind = 'model_request'
      AND coalesce(json_extract(payload, '$.purpose'), '') <> 'compaction'
);

-- Only a request costs a JSON read; every other event is one comparison.
CREATE TRIGGER events_rounds AFTER INSERT ON events
WHEN new.kind = 'model_request' AND coalesce(json_extract(new.payload, '$.purpose'), '') <> 'compaction'
BEGIN
    UPDATE sessions SET rounds = rounds + 1 WHERE id = new.session_id;
END;
