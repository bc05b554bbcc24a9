package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
	"golang.org/x/term"
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// Env is everything a command reads from the outside world, gathered once
// at startup so that commands are testable in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Vars holds the environment variables swc reads (see envVars).
	Vars map[string]string
	// StderrTTY reports whether stderr is a terminal (progress bars, colour).
	StderrTTY bool
	// StdoutTTY reports whether stdout is a terminal (colour).
	StdoutTTY bool

	stdin []byte // Stdin's bytes once a command read "-" (see readInput)
}

// envVars lists every environment variable swc reads, for --help.
var envVars = []struct{ name, use string }{
	{"ANTHROPIC_API_KEY", "key for anthropic:MODEL providers, and the upstream key of swc serve --upstream-anthropic"},
	{"ANTHROPIC_BASE_URL", "Anthropic API base URL, without /v1 (default https://api.anthropic.com)"},
	{"GEMINI_API_KEY", "the upstream key of swc serve --upstream-gemini (sent as x-goog-api-key)"},
	{"OPENAI_API_KEY", "key for openai:MODEL providers, and the upstream key of swc serve --upstream-openai"},
	{"OPENAI_BASE_URL", "OpenAI-compatible base URL, with /v1 (default https://api.openai.com/v1)"},
	{"OLLAMA_BASE_URL", "Ollama's OpenAI-compatible base URL (default http://localhost:11434/v1)"},
	{"SWC_SESSION_SECRET", "swc serve: the secret that signs /ui sessions; give replicas behind one load balancer the same (unset: a random one per process, so a login holds on its replica until it restarts)"},
	{"SWC_CACHE", "REM/response cache file (default: swc/cache.db in the user cache directory)"},
	{"NO_COLOR", "disable colour even on a terminal"},
	{"GOGC", "Go's garbage-collector target; swc serve and its load tests use 400 when it is unset (the Go default is 100)"},
	{"GOMEMLIMIT", "Go's soft memory limit; swc bench uses 1536MiB when it is unset and --memory-limit is not given"},
}

// NewEnv reads the environment variables swc uses out of environ.
func NewEnv(stdin io.Reader, stdout, stderr io.Writer, environ []string) *Env {
	e := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Vars: map[string]string{}}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, ev := range envVars {
			if ev.name == k {
				e.Vars[k] = v
			}
		}
	}
	if f, ok := stderr.(*os.File); ok {
		e.StderrTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stdout.(*os.File); ok {
		e.StdoutTTY = term.IsTerminal(int(f.Fd()))
	}
	return e
}

// command is one subcommand of swc.
type command struct {
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// commands is filled by the init functions of the cmd_*.go files.
var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, env *Env, args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

// usageError marks errors caused by how swc was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// Run executes the swc command line args (without the program name).
// It returns a *usageError for bad flags or arguments and the command's
// error otherwise.
func Run(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		// No command is a usage error, as in other CLIs: the list of
		// commands goes to stderr and the exit status is 2.
		printUsage(env.Stderr)
		return usagef("no command given")
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				return usagef("unknown command %q (run \"swc help\")", args[1])
			}
			if err := c.run(ctx, env, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
				return err
			}
			return nil
		}
		printUsage(env.Stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return usagef("unknown command %q (run \"swc help\")", args[0])
	}
	err := c.run(ctx, env, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if terr := tokens.Err(); err == nil && terr != nil {
		// Counts the encoder failed on were byte counts (upper bounds): the
		// budgets held, but the figures are not token counts.
		return swc.Errorf(swc.EINTERNAL, "%s: %v (those counts are byte counts, upper bounds)", args[0], terr)
	}
	return err
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "swc %s — Salience-Weighted Consolidation for long conversations\n\n", Version)
	fmt.Fprintln(w, "Usage: swc COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun \"swc COMMAND -h\" for a command's flags.")
	fmt.Fprintln(w, "Without --data, commands use the built-in sample conversation.")
	fmt.Fprintln(w, "\nEnvironment:")
	for _, ev := range envVars {
		fmt.Fprintf(w, "  %-20s %s\n", ev.name, ev.use)
	}
}

// newFlags returns a FlagSet for a subcommand that reports errors instead of
// exiting. Its Usage prints the usage line and, when the command has any,
// its flags to env.Stderr.
func newFlags(env *Env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseFlags reports errors in one line
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: swc %s\n", strings.TrimSpace(name+" "+usage))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			return
		}
		fmt.Fprintln(env.Stderr, "\nFlags:")
		fs.SetOutput(env.Stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, turning flag errors into one-line usage errors
// that say where the flags are listed. It prints the usage and returns
// flag.ErrHelp for -h.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on errors too
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return err
		}
		return usagef("%s: %v (see 'swc %s -h')", fs.Name(), err, fs.Name())
	}
	return nil
}

// noArgs returns a usage error when a command that takes no arguments got
// some.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (see 'swc %s -h')", fs.Name(), fs.Arg(0), fs.Name())
	}
	return nil
}

// writeJSON prints v as indented JSON, the form every --json flag uses.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
