// Package sample holds the Go shapes the generator's test writes.
package sample

import (
	"encoding/json"
	"time"
)

// Color is a named string with constants: a union.
type Color string

const (
	Red  Color = "red"
	Blue Color = "blue"
)

// Untyped constants, read by Consts.
const (
	ShapeRound  = "round"
	ShapeSquare = "square"
	other       = "not a shape"
)

// Base is embedded without a tag: its fields are the outer type's.
type Base struct {
	ID string `json:"id"`
}

// Inner is reached through Outer.
type Inner struct {
	N int `json:"n"`
}

// Outer has a field of every kind the generator writes.
type Outer struct {
	Base
	// Name is documented.
	Name     string           `json:"name"`
	Opt      string           `json:"opt,omitempty"`
	Zero     Inner            `json:"zero,omitzero"`
	Ptr      *Inner           `json:"ptr"`
	OptPtr   *Inner           `json:"opt_ptr,omitempty"`
	List     []Inner          `json:"list"`
	OptList  []string         `json:"opt_list,omitempty"`
	Ptrs     []*Inner         `json:"ptrs"`
	Map      map[string]Color `json:"map"`
	When     time.Time        `json:"when"`
	Took     time.Duration    `json:"took"`
	Raw      json.RawMessage  `json:"raw"`
	Any      any              `json:"any"`
	Fixed    [2]int           `json:"fixed"`
	Quoted   int64            `json:"quoted,string"`
	Untagged bool
	Skipped  string `json:"-"`
	hidden   string
	Inline   struct{ A bool }  `json:"inline"`
	Dashed   string            `json:"with-dash"`
	Colors   map[string][]bool `json:"colors"`
}

// Service has methods of each shape Wails binds.
type Service struct{}

// Get finds one by id.
func (*Service) Get(id string, n int) (Inner, error) { return Inner{}, nil }

// List has a nil slice to give.
func (*Service) List() []Inner { return nil }

// Save only fails or not.
func (*Service) Save(Outer) error { return nil }

// Ping gives nothing.
func (*Service) Ping() {}
