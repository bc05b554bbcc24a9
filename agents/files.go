package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The Gemini Files API, as the upstream plays it: a resumable upload
// (a start request answered with the URL to send the bytes to, then the
// bytes, the last chunk with the command "upload, finalize", answered
// with the file), and a file's get. An SDK uploads audio or video so and
// names it by URI in its requests (fileData); swc learns its length from
// these answers.

// GeminiKey is the key swc's proxy sends the upstream Gemini requests
// with: a Files API request that came through swc must carry it (and not
// the agent's swc key).
const GeminiKey = "upstream-gemini-key"

// keyed notes a breach for a request that came through swc without the
// server's key.
func (u *Upstream) keyed(r *http.Request, n int) {
	if r.Header.Get(HeaderSeq) != "" && r.Header.Get("X-Goog-Api-Key") != GeminiKey {
		u.st.Breaches = append(u.st.Breaches, Breach{Request: n, Rule: "key", Detail: fmt.Sprintf("%s %s through swc without the server's key (x-goog-api-key %q, authorization %q)",
			r.Method, r.URL.Path, r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Authorization"))})
	}
}

// upload is one resumable upload: what its start announced and the
// bytes received.
type upload struct {
	mime string
	size int
	got  int
	via  bool // every request of it came through swc (HeaderSeq)
}

// UploadedFile is a file the upstream received whole.
type UploadedFile struct {
	URI, MIMEType string
	Size          int
	ViaSWC        bool // its start and its bytes came through swc
}

// fileJSON is the Files API's File resource for an upload.
func fileJSON(id string, up *upload) string {
	b, _ := json.Marshal(map[string]any{
		"name": "files/" + id, "displayName": id, "mimeType": up.mime, "sizeBytes": strconv.Itoa(up.size),
		"createTime": "2026-12-05T00:00:00.000000Z", "updateTime": "2026-12-05T00:00:00.000000Z",
		"expirationTime": "2026-12-07T00:00:00.000000Z", "sha256Hash": "", "uri": fileURI(id),
		"state": "ACTIVE", "source": "UPLOADED",
	})
	return string(b)
}

// fileURI is the URI the Files API gives a file: Google's own host,
// whatever host the upload went to.
func fileURI(id string) string { return "https://generativelanguage.googleapis.com/v1beta/files/" + id }

// geminiUpload answers a request of a resumable upload.
func (u *Upstream) geminiUpload(w http.ResponseWriter, r *http.Request, n int, body []byte) {
	cmd := strings.ToLower(r.Header.Get("X-Goog-Upload-Command"))
	via := r.Header.Get(HeaderSeq) != ""
	u.mu.Lock()
	defer u.mu.Unlock()
	u.keyed(r, n)
	if u.uploads == nil {
		u.uploads = map[string]*upload{}
	}
	if cmd == "start" {
		size, err := strconv.Atoi(r.Header.Get("X-Goog-Upload-Header-Content-Length"))
		if err != nil || r.Header.Get("X-Goog-Upload-Protocol") != "resumable" {
			u.st.Breaches = append(u.st.Breaches, Breach{Request: n, Rule: "upload", Detail: "a start without a resumable protocol or a length"})
			http.Error(w, `{"error":{"code":400,"message":"bad upload","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
			return
		}
		id := fmt.Sprintf("up-%04d", n)
		u.uploads[id] = &upload{mime: r.Header.Get("X-Goog-Upload-Header-Content-Type"), size: size, via: via}
		// Google answers with its own host; swc points it back at itself.
		w.Header().Set("X-Goog-Upload-URL", u.URL+"/upload/v1beta/files?upload_id="+id+"&upload_protocol=resumable")
		w.Header().Set("X-Goog-Upload-Status", "active")
		w.Header().Set("X-Goog-Upload-Chunk-Granularity", "8388608")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		return
	}
	id := r.URL.Query().Get("upload_id")
	up := u.uploads[id]
	off, err := strconv.Atoi(r.Header.Get("X-Goog-Upload-Offset"))
	if up == nil || !strings.Contains(cmd, "upload") || err != nil || off != up.got {
		u.st.Breaches = append(u.st.Breaches, Breach{Request: n, Rule: "upload", Detail: fmt.Sprintf("upload %q: command %q at offset %q", id, cmd, r.Header.Get("X-Goog-Upload-Offset"))})
		http.Error(w, `{"error":{"code":400,"message":"bad upload","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	up.got += len(body)
	up.via = up.via && via
	if !strings.Contains(cmd, "finalize") {
		w.Header().Set("X-Goog-Upload-Status", "active")
		return
	}
	if up.got != up.size {
		u.st.Breaches = append(u.st.Breaches, Breach{Request: n, Rule: "upload", Detail: fmt.Sprintf("upload %q: %d bytes of the %d announced", id, up.got, up.size)})
	}
	u.files = append(u.files, UploadedFile{URI: fileURI(id), MIMEType: up.mime, Size: up.got, ViaSWC: up.via})
	w.Header().Set("X-Goog-Upload-Status", "final")
	writeJSON(w, `{"file":`+fileJSON(id, up)+`}`)
}

// geminiFile answers a get of a file uploaded whole.
func (u *Upstream) geminiFile(w http.ResponseWriter, r *http.Request, n int, id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.keyed(r, n)
	if up := u.uploads[id]; up != nil && up.got == up.size {
		writeJSON(w, fileJSON(id, up))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":{"code":404,"message":"File files/%s not found.","status":"NOT_FOUND"}}`, id)
}

// Uploaded returns the files uploaded whole so far, in order.
func (u *Upstream) Uploaded() []UploadedFile {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]UploadedFile(nil), u.files...)
}
