package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/swcmem/swc"
)

// Sweep makes sure every conversation owed a consolidation has a job
// (existing jobs absorb the request): once now, then every interval until
// ctx ends (never when interval <= 0). A replica or database that failed
// between storing an append and enqueueing its job is covered so, without
// a restart. It returns the first sweep's error; later ones are logged
// as warnings.
func Sweep(ctx context.Context, store swc.Store, queue swc.Queue, interval time.Duration, logger *slog.Logger) error {
	once := func() error {
		refs, err := store.Unconsolidated(ctx)
		if err != nil {
			return err
		}
		for _, r := range refs {
			if err := queue.Enqueue(ctx, r.Tenant, r.ID, time.Now()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := once(); err != nil {
		return err
	}
	if interval > 0 {
		go func() {
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if err := once(); err != nil && ctx.Err() == nil {
						logger.Warn("sweep for conversations owed a job", "err", err)
					}
				}
			}
		}()
	}
	return nil
}
