package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ContextRecord is one line of contexts.jsonl: a context a condition made.
// QuestionID is empty for question-agnostic conditions, whose context is
// written once per conversation.
type ContextRecord struct {
	Condition    string `json:"condition"`
	Budget       int    `json:"budget"`
	Conversation string `json:"conversation"`
	QuestionID   string `json:"question_id"`
	Tokens       int    `json:"tokens"`
	Text         string `json:"text"`
}

// ContextWriter writes DIR/contexts.jsonl. It is safe for concurrent use.
type ContextWriter struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// CreateContexts creates (truncating) dir/contexts.jsonl. A run writes
// every context it scores, resumed questions included, so the file always
// describes the whole run.
func CreateContexts(dir string) (*ContextWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	path := filepath.Join(dir, "contexts.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &ContextWriter{f: f, path: path}, nil
}

// Write appends one record.
func (w *ContextWriter) Write(r ContextRecord) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("bench: encode context: %w", err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("bench: write %s: %w", w.path, err)
	}
	return nil
}

// Close closes the file.
func (w *ContextWriter) Close() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("bench: close %s: %w", w.path, err)
	}
	return nil
}
