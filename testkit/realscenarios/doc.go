// Package realscenarios runs Loupe's engine — session.Manager, the SQLite
// store, the Ollama client and the real tools — against a REAL Ollama server
// (testkit/realollama) serving scripted models (testkit/gguf), and runs the
// ollama conformance suite over that server. It holds tests only.
//
// The tests skip unless LOUPE_REAL_OLLAMA=1; run them with
//
//	scripts/real-ollama/test.sh ./testkit/...
//
// Golden event logs live in testdata/golden; rewrite them with
//
//	scripts/real-ollama/test.sh ./testkit/realscenarios -update
package realscenarios
