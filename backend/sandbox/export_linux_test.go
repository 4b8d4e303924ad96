package sandbox

// Helpers of the internal tests, for the external ones (package
// sandbox_test), which run with the real policy's guard: package permission
// imports this one, so tests inside it cannot.
var (
	Crun        = crun
	Needs       = needs
	ProbeLogged = protections
)

// PlanWorkspace returns the mounts planWorkspace would make.
func PlanWorkspace(ws string, guard PathGuard, hide []string) (pins, readOnly, hidden []string, err error) {
	p, err := planWorkspace(ws, guard, hide)
	return p.Pins, p.ReadOnly, p.Hidden, err
}

// FactsKept says whether FactsOf keeps facts for ws now (tests check that
// the case they make runs on kept facts, not on a fresh walk).
func FactsKept(ws string) bool {
	factsCache.Lock()
	defer factsCache.Unlock()
	return factsCache.m[ws] != nil
}

// The clean-up race tests' helpers (cleanup_race_test.go).
var (
	PlantRepo = plantRepo
	Listing   = listing
)
