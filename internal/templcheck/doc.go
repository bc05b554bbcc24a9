// Package templcheck holds one test: the Go code templ
// (github.com/a-h/templ) generated from the module's .templ files, which is
// committed, is the code the current templates give. It runs templ's
// generator in process (no network, no templ binary), so a template edited
// without regenerating fails `go test ./...`. After editing a template,
// regenerate every _templ.go with
//
//	go test ./internal/templcheck -update
//
// which writes what `templ generate` run at the module root writes, and
// works even while the edited package does not compile.
package templcheck
