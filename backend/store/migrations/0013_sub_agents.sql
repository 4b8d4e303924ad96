-- 0013: sub-agents. A sub-agent's nested run is written to its session's
-- log like the session's own loop, each event marked with the sub-run it
-- belongs to: the id of the task call that started it ('' for the
-- session's own loop). A run's history, state and open calls are read from
-- its own events only.
ALTER TABLE events ADD COLUMN agent TEXT NOT NULL DEFAULT '';
