package session

// Breakpoints make a run pause at checkpoints even when not stepping: at
// every checkpoint of the named kinds, and before any call of the named
// tools.
type Breakpoints struct {
	Points []string `json:"points"`
	Tools  []string `json:"tools"`
}
