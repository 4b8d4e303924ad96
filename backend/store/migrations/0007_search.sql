-- 0007: full-text search over the events' text.
--
-- The text of an event (trace.SearchText: messages, answers, thinking, call
-- arguments, whole tool outputs, notices, reasons, paths) is indexed by an
-- FTS5 table with the trigram tokenizer, which matches any substring of 3
-- characters or more, case-insensitively: code such as `parse_args(` or
-- `.env` is found as typed. The table is contentless: the text is in the
-- events' payloads already, and search cuts its snippets from there, so a
-- tool output of a megabyte is not stored twice. contentless_delete lets a
-- deleted session's rows go.
--
-- An event is indexed in the transaction that appends it (Store.Append):
-- its search_docs row (whose id is the FTS rowid) and its text.
CREATE VIRTUAL TABLE search_text USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'trigram'
);

-- Which event each indexed text belongs to. A deleted session takes its
-- rows with it (FTS5 tables have no foreign keys: the trigger removes the
-- text, and SQLite fires it for cascaded deletes too).
CREATE TABLE search_docs (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;

CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs BEGIN
    DELETE FROM search_text WHERE rowid = old.id;
END;

-- Events that still need indexing, as a range of seqs per session: every
-- event written before this migration (SQL cannot compute an event's text),
-- and any event a writer put in the log without its text (an older Loupe
-- still running on this file, or SQL outside Store.Append). The app
-- indexes them in the background, a few at a time (Store.IndexBacklog);
-- until the table is empty, search says its results are partial.
CREATE TABLE search_backlog (
    session_id TEXT    NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    from_seq   INTEGER NOT NULL,
    to_seq     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO search_backlog (session_id, from_seq, to_seq)
    SELECT id, 1, last_seq FROM sessions WHERE last_seq > 0;

-- Store.Append writes an event's search_docs row before the event, so an
-- event that arrives without one was written by something else: it goes
-- to the backlog. One lookup in search_docs' unique index per event.
CREATE TRIGGER events_unindexed AFTER INSERT ON events
WHEN NOT EXISTS (SELECT 1 FROM search_docs WHERE session_id = new.session_id AND seq = new.seq)
BEGIN
    INSERT INTO search_backlog (session_id, from_seq, to_seq) VALUES (new.session_id, new.seq, new.seq)
    ON CONFLICT (session_id) DO UPDATE SET
        from_seq = min(from_seq, excluded.from_seq),
        to_seq = max(to_seq, excluded.to_seq);
END;
