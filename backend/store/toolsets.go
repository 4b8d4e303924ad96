package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

const (
	findToolSetSQL = `SELECT id FROM tool_sets WHERE session_id = ? AND hash = ?`
	toolSetsSQL    = `SELECT id, tools FROM tool_sets WHERE session_id = ? ORDER BY id`
)

// PutToolSet stores a session's tool set (the JSON array of the tools'
// specs offered to the model) unless the session has it already, and
// returns its id: 1, 2, 3… in the order the session's sets were first
// stored. The same bytes always get the same id, so a request stores the
// id, not the schemas. A missing session is ErrNotFound.
func (s *Store) PutToolSet(ctx context.Context, sessionID string, tools json.RawMessage) (int, error) {
	if !json.Valid(tools) {
		return 0, fmt.Errorf("store: tool set of %q is not valid JSON", sessionID)
	}
	sum := sha256.Sum256(tools)
	hash := hex.EncodeToString(sum[:])
	var id int
	err := s.r.QueryRowContext(ctx, findToolSetSQL, sessionID, hash).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: tool set of %q: %w", sessionID, err)
	}
	// BEGIN IMMEDIATE: another writer cannot take the same id meanwhile.
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store: tool set of %q: %w", sessionID, err)
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, findToolSetSQL, sessionID, hash).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: tool set of %q: %w", sessionID, err)
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, sessionID).Scan(&exists); err != nil {
		return 0, fmt.Errorf("store: tool set of %q: %w", sessionID, err)
	}
	if !exists {
		return 0, notFound(sessionID)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO tool_sets (session_id, id, hash, tools)
		VALUES (?, (SELECT coalesce(max(id), 0) + 1 FROM tool_sets WHERE session_id = ?), ?, ?)
		RETURNING id`, sessionID, sessionID, hash, string(tools)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: tool set of %q: %w", sessionID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store: tool set of %q: commit: %w", sessionID, err)
	}
	return id, nil
}

// ToolSets returns a session's tool sets by id (empty when it has none).
func (s *Store) ToolSets(ctx context.Context, sessionID string) (map[int]json.RawMessage, error) {
	rows, err := s.r.QueryContext(ctx, toolSetsSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: tool sets of %q: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[int]json.RawMessage{}
	for rows.Next() {
		var id int
		var tools []byte
		if err := rows.Scan(&id, &tools); err != nil {
			return nil, fmt.Errorf("store: tool sets of %q: %w", sessionID, err)
		}
		out[id] = tools
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: tool sets of %q: %w", sessionID, err)
	}
	return out, nil
}
