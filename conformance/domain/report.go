package domain

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// stepTitles are the description's three steps, as the checklist shows them.
var stepTitles = map[Rule]string{
	RuleVerifies: "confirm the domain still verifies",
	RuleCAA:      "check that CAA records do not block the certificate authority",
	RuleReverify: "use Re-verify",
}

// Write prints the report for people: one line per rule with its verdict
// and what was seen, the next step under it, then the certificate and the
// checklist when there are any, then the counts.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", r.Domain)
	if u := unicodeName(r.Domain); u != "" {
		fmt.Fprintf(&b, " (%s)", u)
	}
	if r.Target != "" {
		fmt.Fprintf(&b, " → %s", r.Target)
	}
	fmt.Fprintf(&b, " (resolver %s)\n\n", r.Resolver)
	for _, res := range r.Results {
		writeResult(&b, "", res)
	}
	if c := r.Certificate; c != nil {
		fmt.Fprintf(&b, "\ncertificate served at %s\n", c.Addr)
		fmt.Fprintf(&b, "  issuer   %s\n", c.Issuer)
		fmt.Fprintf(&b, "  names    %s\n", strings.Join(c.Names, ", "))
		fmt.Fprintf(&b, "  valid    %s to %s (%s)\n", c.NotBefore.UTC().Format(time.DateOnly), c.NotAfter.UTC().Format(time.DateOnly), untilText(c.NotAfter, r.At))
		covers := "no"
		if c.Covers {
			covers = "yes"
		}
		fmt.Fprintf(&b, "  covers   %s: %s\n", r.Domain, covers)
	}
	if len(r.Checklist) > 0 {
		fmt.Fprintf(&b, "\nno valid certificate: one is usually issued within minutes of verification;\nif %d minutes have passed, the description's three steps:\n", int(CertificateWait.Minutes()))
		for i, step := range r.Checklist {
			fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, step.Verdict, stepTitles[step.Rule])
			if step.Detail != "" {
				fmt.Fprintf(&b, "       %s\n", step.Detail)
			}
			for _, sub := range step.Checks {
				writeResult(&b, "       ", sub)
			}
			if step.Next != "" {
				fmt.Fprintf(&b, "       next: %s\n", step.Next)
			}
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictWidth and ruleWidth line the columns up: the longest verdict
// ("cannot tell") and rule ("apex address", "propagation").
const (
	verdictWidth = 11
	ruleWidth    = 12
)

func writeResult(b *strings.Builder, indent string, res Result) {
	fmt.Fprintf(b, "%s%-*s  %-*s  %s\n", indent, verdictWidth, res.Verdict, ruleWidth, res.Rule, res.Detail)
	if res.Next != "" {
		fmt.Fprintf(b, "%s%*s  next: %s\n", indent, verdictWidth+2+ruleWidth, "", res.Next)
	}
}

func untilText(t, now time.Time) string {
	d := t.Sub(now)
	days := int(d.Hours() / 24)
	switch {
	case d < 0 && days == 0:
		return "expired today"
	case d < 0 && days == -1:
		return "expired 1 day ago"
	case d < 0:
		return fmt.Sprintf("expired %d days ago", -days)
	case days == 0:
		return "expires today"
	case days == 1:
		return "expires in 1 day"
	}
	return fmt.Sprintf("expires in %d days", days)
}
