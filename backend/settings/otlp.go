package settings

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/backend/otlp"
)

// validateOTLP says what is wrong with the OTLP export setting: an
// endpoint that is not an http(s) URL, a protocol OTLP/HTTP has not.
func validateOTLP(s Settings) []string {
	var probs []string
	if strings.TrimSpace(s.OTLPEndpoint) != "" {
		if _, err := otlp.Endpoint(s.OTLPEndpoint); err != nil {
			probs = append(probs, err.Error()+"; leave it empty to send no traces")
		}
	}
	switch s.OTLPProtocol {
	case "", otlp.ProtoBuf, otlp.JSON:
	default:
		probs = append(probs, fmt.Sprintf("unknown OTLP protocol %q (use %q or %q)", s.OTLPProtocol, otlp.ProtoBuf, otlp.JSON))
	}
	return probs
}

// OTLPExport is where finished runs go, and how; On is false when the
// setting is empty.
type OTLPExport struct {
	Endpoint  string
	Protocol  string
	NoContent bool
}

// On says whether finished runs are sent.
func (e OTLPExport) On() bool { return e.Endpoint != "" }

// OTLP is the export of finished runs the settings ask for.
func (s Settings) OTLP() OTLPExport {
	return OTLPExport{Endpoint: strings.TrimSpace(s.OTLPEndpoint), Protocol: s.OTLPProtocol, NoContent: s.OTLPNoContent}
}
