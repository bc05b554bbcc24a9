package main

import (
	"context"
	"log/slog"
	"net"

	"github.com/swcmem/swc/consolidate"
)

// startLoadtestService starts the service in-process, as `swc serve` wires
// it from serveArgs, on a loopback listener, logging errors only to
// env.Stderr. It returns the service, its base URL ("http://127.0.0.1:N")
// and a stop function that closes the HTTP server and then the service;
// on error nothing is left running.
func startLoadtestService(ctx context.Context, env *Env, serveArgs []string) (*service, string, func(), error) {
	sfs := newFlags(env, "serve", "")
	sf, ef := addServeFlags(sfs)
	if err := sfs.Parse(serveArgs); err != nil {
		return nil, "", nil, err
	}
	sched, _ := consolidate.ParseSchedule(ef.schedule)
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	svc, err := openService(ctx, env, sf, ef, sched, logger)
	if err != nil {
		return nil, "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.close()
		return nil, "", nil, err
	}
	hs := svc.srv.HTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	stop := func() {
		hs.Close()
		svc.close()
	}
	return svc, "http://" + ln.Addr().String(), stop, nil
}
