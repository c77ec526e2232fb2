package store

import "sync"

// createGroup gathers the creates of one collection that wait to commit
// to a shared journal, so that one exchange commits them all (group
// commit). With replicas a commit is a round trip to Redis made under the
// collection's write lock: creates that each made their own would queue
// behind it one by one, and each be built again whenever another replica
// committed first; a group pays the round trip, and the refusal, once.
// Each create still gets its own answer: one the schema or the limits
// refuse leaves the others to commit.
type createGroup struct {
	mu    sync.Mutex
	queue []*groupedCreate
	// leading says a create is committing a group; the others queue.
	leading bool
}

// groupedCreate is one create in a group, and its answer.
type groupedCreate struct {
	obj any
	w   Write
	rec Record
	err error
	// wake is closed once the create is answered, or once it is to lead
	// the next group (lead is set first).
	wake chan struct{}
	lead bool
}

// maxGroup bounds the creates one commit takes, and so the size of one
// exchange with the journal.
const maxGroup = 256

// create makes the record obj makes in c, in a group with the creates
// that wait meanwhile; it answers as Collection.Create does.
func (g *createGroup) create(c *Collection, obj any, w Write) (Record, error) {
	me := &groupedCreate{obj: obj, w: w, wake: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, me)
	if g.leading {
		g.mu.Unlock()
		<-me.wake
		if !me.lead {
			return me.rec, me.err
		}
		g.mu.Lock()
	}
	// This create is first in the queue: it commits the group.
	g.leading = true
	n := min(len(g.queue), maxGroup)
	group := g.queue[:n:n]
	g.queue = append([]*groupedCreate(nil), g.queue[n:]...)
	g.mu.Unlock()

	c.createGroupOf(group)

	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		next.lead = true
		close(next.wake)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, p := range group[1:] {
		close(p.wake)
	}
	return me.rec, me.err
}

// createGroupOf builds every create of group against the table as the
// ones before it leave it, commits those that build in one exchange, and
// sets each create's answer.
func (c *Collection) createGroupOf(group []*groupedCreate) {
	// No catching up first: the commit, sent even when no create built,
	// is refused when another replica changed c since, and brings c up to
	// date with its refusal; a group alone then costs one exchange.
	err := c.committed(func(tx *commitTx) error {
		c.table.mu.Lock()
		defer c.table.mu.Unlock()
		cur := c.table.cursor()
		if len(group) > 1 {
			cur.taken = map[string]bool{} // a create alone can meet no other of its group
		}
		built := make([]entry, 0, len(group))
		owners := make([]*groupedCreate, 0, len(group))
		for _, p := range group {
			// Built again after a refusal: on the records applied with it.
			p.rec, p.err = Record{}, nil
			e, err := c.buildNewLocked(&cur, p.obj, p.w)
			if err != nil {
				p.err = err
				continue
			}
			built, owners = append(built, e), append(owners, p)
		}
		if err := tx.putAll(built); err != nil {
			return err
		}
		for i := range built {
			owners[i].rec = c.table.insertLocked(&built[i])
		}
		return nil
	})
	if err != nil {
		for _, p := range group {
			if p.err == nil {
				p.err = err
			}
		}
	}
}
