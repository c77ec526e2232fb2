package engine

// serveStub answers with a copy of the configured response.
func (o *operation) serveStub() *response {
	res := &response{status: o.stub.status, body: o.stub.body, proven: true}
	for k, vs := range o.stub.header {
		for _, v := range vs {
			res.set(k, v)
		}
	}
	return res
}
