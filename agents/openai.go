package agents

import "net/http"

func (u *Upstream) responses(w http.ResponseWriter, n int, body, orig []byte) {
	http.Error(w, "todo", 500)
}

func (u *Upstream) chat(w http.ResponseWriter, n int, body, orig []byte) {
	http.Error(w, "todo", 500)
}
