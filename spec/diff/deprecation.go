package diff

// Removals and deprecations, judged by the removal dates the document
// gives (x-sunset, x-deprecated-at; see spec.Operation) and the policy's
// minimum notice.

import (
	"fmt"

	"github.com/pb33f/libopenapi/what-changed/model"
	"github.com/petctl/petctl/spec"
)

// dateText is how dates read in the report.
const dateText = "2 January 2006"

const (
	whyNotDeprecated   = "removed without being deprecated first"
	whyNoSunsetRemoved = "deprecated, but without a removal date (x-sunset): clients were never told when it would go"
	whyBeforeSunset    = "removed before the removal date its deprecation announced"
	whyAfterSunset     = "removed after the removal date its deprecation announced"
	whyNoSunset        = "deprecated without a removal date (x-sunset): clients cannot plan the move"
	whyShortNotice     = "the removal date gives less notice than the policy's minimum (--min-notice)"
	whyBroughtForward  = "the removal date was brought forward: clients planned by the old one"
	whyEnoughNotice    = "deprecated with a removal date that gives the policy's notice"
	whyUndeprecated    = "no longer deprecated: clients may keep using it"
)

// removedOperation judges an operation of the old document the new one
// no longer has.
func (w *walker) removedOperation(op *spec.Operation, c *model.Change) {
	at := place{op: opName(op)}
	switch {
	case !op.Deprecated:
		w.add(at, Breaking, "operation removed", whyNotDeprecated, c)
	case op.Sunset.IsZero():
		w.add(at, Breaking, "operation removed", whyNoSunsetRemoved, c)
	case w.policy.Now.Before(op.Sunset):
		w.add(at, Breaking, fmt.Sprintf("operation removed before %s (x-sunset), judged on %s", op.Sunset.Format(dateText), w.policy.Now.Format(dateText)), whyBeforeSunset, c)
	default:
		w.add(at, Safe, fmt.Sprintf("operation removed after %s (x-sunset)", op.Sunset.Format(dateText)), whyAfterSunset, c)
	}
}

// deprecation judges an operation whose deprecation, removal date or
// deprecation date changed, once, by the new document.
func (w *walker) deprecation(oldOp, newOp *spec.Operation, c *model.Change) {
	if newOp == nil {
		return
	}
	key := newOp.Route()
	if w.deprecations[key] {
		return
	}
	w.deprecations[key] = true
	at := place{op: opName(newOp), where: "deprecation"}
	if !newOp.Deprecated {
		w.add(at, Safe, "no longer deprecated", whyUndeprecated, c)
		return
	}
	if newOp.Sunset.IsZero() {
		w.add(at, Flagged, "deprecated without a removal date", whyNoSunset, c)
		return
	}
	// Notice runs from when clients can learn of it: now, or the
	// deprecation date when that is later.
	start := w.policy.Now
	if newOp.DeprecatedAt.After(start) {
		start = newOp.DeprecatedAt
	}
	notice := newOp.Sunset.Sub(start)
	sunset := newOp.Sunset.Format(dateText)
	switch {
	case oldOp != nil && oldOp.Deprecated && !oldOp.Sunset.IsZero() && newOp.Sunset.Before(oldOp.Sunset):
		w.add(at, Flagged, fmt.Sprintf("removal date brought forward from %s to %s", oldOp.Sunset.Format(dateText), sunset), whyBroughtForward, c)
	case notice < w.policy.MinNotice:
		w.add(at, Flagged, fmt.Sprintf("removal on %s gives %s of notice from %s; the policy asks for %s", sunset, days(notice), start.Format(dateText), days(w.policy.MinNotice)), whyShortNotice, c)
	default:
		w.add(at, Safe, fmt.Sprintf("deprecated, removal on %s (%s of notice)", sunset, days(notice)), whyEnoughNotice, c)
	}
}

// days writes a duration in whole days.
func days(d interface{ Hours() float64 }) string {
	n := int(d.Hours() / 24)
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d day", n)
	}
	return fmt.Sprintf("%d days", n)
}
