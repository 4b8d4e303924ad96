package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// GetSetting decodes the JSON value stored under key into dst and reports
// whether there was one; a missing key leaves dst alone and is not an error.
func (s *Store) GetSetting(ctx context.Context, key string, dst any) (bool, error) {
	var value []byte
	err := s.stmt.getSetting.QueryRowContext(ctx, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: get setting %q: %w", key, err)
	}
	if err := json.Unmarshal(value, dst); err != nil {
		return true, fmt.Errorf("store: decode setting %q: %w", key, err)
	}
	return true, nil
}

// PutSetting stores v, encoded as JSON, under key, replacing any old value.
func (s *Store) PutSetting(ctx context.Context, key string, v any) error {
	value, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode setting %q: %w", key, err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, string(value)); err != nil {
		return fmt.Errorf("store: put setting %q: %w", key, err)
	}
	return nil
}
