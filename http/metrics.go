package http

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type metrics struct {
	latency *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swc_http_request_duration_seconds",
			Help:    "HTTP request latency by route and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "code"}),
	}
	reg.MustRegister(m.latency)
	return m
}

func (m *metrics) handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// JobMetrics counts consolidation jobs and gists; the serve command feeds
// them from the queue's results.
type JobMetrics struct {
	Jobs  *prometheus.CounterVec // result: ok, failed, snoozed
	Gists prometheus.Counter
}

// NewJobMetrics registers the job counters in reg.
func NewJobMetrics(reg *prometheus.Registry) *JobMetrics {
	j := &JobMetrics{
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swc_jobs_total", Help: "Consolidation job attempts by result (ok, failed, snoozed).",
		}, []string{"result"}),
		Gists: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swc_gists_made_total", Help: "Gists stored by consolidation jobs.",
		}),
	}
	reg.MustRegister(j.Jobs, j.Gists)
	return j
}

// Record counts one job attempt.
func (j *JobMetrics) Record(err error, snoozed bool, gists int) {
	switch {
	case err != nil:
		j.Jobs.WithLabelValues("failed").Inc()
	case snoozed:
		j.Jobs.WithLabelValues("snoozed").Inc()
	default:
		j.Jobs.WithLabelValues("ok").Inc()
	}
	j.Gists.Add(float64(gists))
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe records latency by route pattern and status, and logs the
// request (method, route pattern, status, duration: never the key, the
// tenant or the conversation id).
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := r.Pattern
		if route == "" || route == "/" {
			route = "other"
		}
		d := time.Since(start)
		s.metrics.latency.WithLabelValues(route, strconv.Itoa(sw.status)).Observe(d.Seconds())
		s.logger().Debug("request", "route", route, "status", sw.status, "ms", float64(d.Microseconds())/1000)
	})
}
