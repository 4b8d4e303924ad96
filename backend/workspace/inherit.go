package workspace

import (
	"context"

	"github.com/loupe-dev/loupe/backend/permission"
)

// Inherit gives a fork's copy (to, a new folder holding what from held)
// what the user decided for from that keeps it as safe: the trust of its
// .loupe/settings.json (it counts only while the copy's file is the one
// trusted, byte for byte) and the answers "always for this workspace"
// that deny. Answers that allow, the network and exposed paths are not
// carried: they widen what the copy's commands may do, and are the user's
// to give again there.
func (w *Workspaces) Inherit(ctx context.Context, from, to string) error {
	st, err := w.state(ctx, from)
	if err != nil {
		return err
	}
	return w.update(ctx, to, func(n *state) {
		if n.TrustedDigest == "" {
			n.TrustedDigest = st.TrustedDigest
		}
		for _, g := range st.Grants {
			if g.Rule.Effect == permission.EffectDeny {
				n.Grants = append(n.Grants, g)
			}
		}
	})
}
