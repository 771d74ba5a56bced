package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The rest of MCP beside the catalog's tools: a host adds prompts,
// resources and resource templates with the Server's Add methods, which
// take go-sdk's types and handlers as they are, and argument completion
// and resource subscriptions with options. The Server keeps them and
// registers them with every mcp.Server it serves from (one per stateful
// session, one for the stateless requests), now and for the sessions that
// start later; go-sdk answers their methods and declares their
// capabilities.

// features are the prompts, resources and resource templates a host
// added, each with the generation of its last change.
type features struct {
	mu        sync.Mutex
	gen       atomic.Uint64
	prompts   map[string]promptEntry
	resources map[string]resourceEntry
	templates map[string]templateEntry
}

type promptEntry struct {
	p   *mcp.Prompt
	h   mcp.PromptHandler
	gen uint64
}

type resourceEntry struct {
	r   *mcp.Resource
	h   mcp.ResourceHandler
	gen uint64
}

type templateEntry struct {
	t   *mcp.ResourceTemplate
	h   mcp.ResourceHandler
	gen uint64
}

// applied is what one conn has registered of the features: the
// generation of each.
type applied struct {
	mu        sync.Mutex
	gen       atomic.Uint64
	prompts   map[string]uint64
	resources map[string]uint64
	templates map[string]uint64
}

// AddPrompt adds a prompt, or replaces the one of the same name, for
// every client (go-sdk's mcp.Server.AddPrompt): clients are sent
// notifications/prompts/list_changed. A server with prompts declares the
// prompts capability to the sessions that start after the first one.
func (s *Server) AddPrompt(p *mcp.Prompt, h mcp.PromptHandler) {
	s.base.AddPrompt(p, h) // go-sdk's checks, at once
	s.change(func(f *features, gen uint64) { f.prompts[p.Name] = promptEntry{p, h, gen} })
}

// RemovePrompts removes the prompts of these names.
func (s *Server) RemovePrompts(names ...string) {
	s.change(func(f *features, _ uint64) {
		for _, n := range names {
			delete(f.prompts, n)
		}
	})
}

// AddResource adds a resource, or replaces the one of the same URI, for
// every client (go-sdk's mcp.Server.AddResource, which panics on a URI
// that is not absolute).
func (s *Server) AddResource(r *mcp.Resource, h mcp.ResourceHandler) {
	s.base.AddResource(r, h) // go-sdk's checks, at once
	s.change(func(f *features, gen uint64) { f.resources[r.URI] = resourceEntry{r, h, gen} })
}

// RemoveResources removes the resources of these URIs.
func (s *Server) RemoveResources(uris ...string) {
	s.change(func(f *features, _ uint64) {
		for _, u := range uris {
			delete(f.resources, u)
		}
	})
}

// AddResourceTemplate adds a resource template (RFC 6570), or replaces
// the one of the same template, for every client
// (mcp.Server.AddResourceTemplate, which panics on a template it cannot
// parse).
func (s *Server) AddResourceTemplate(t *mcp.ResourceTemplate, h mcp.ResourceHandler) {
	s.base.AddResourceTemplate(t, h) // go-sdk's checks, at once
	s.change(func(f *features, gen uint64) { f.templates[t.URITemplate] = templateEntry{t, h, gen} })
}

// RemoveResourceTemplates removes the resource templates of these
// templates.
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) {
	s.change(func(f *features, _ uint64) {
		for _, u := range uriTemplates {
			delete(f.templates, u)
		}
	})
}

// ResourceUpdated tells the clients subscribed to params.URI that the
// resource changed (notifications/resources/updated, or its 2026-07-28
// subscription form).
func (s *Server) ResourceUpdated(ctx context.Context, params *mcp.ResourceUpdatedNotificationParams) error {
	var errs []error
	for _, c := range s.liveConns() {
		c.syncFeatures()
		errs = append(errs, c.srv.ResourceUpdated(ctx, params))
	}
	return errors.Join(errs...)
}

// WithCompletionHandler sets the handler of completion/complete (argument
// completion of prompts and resource templates), and so declares the
// completions capability.
func WithCompletionHandler(h func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) Option {
	return func(s *Server) { s.complete = h }
}

// WithResourceSubscriptions lets clients subscribe to resources
// (resources/subscribe, resources/unsubscribe), and so declares the
// capability; subscribe and unsubscribe, either of them nil, are told of
// each (an error refuses it). Send the updates with Server.ResourceUpdated.
func WithResourceSubscriptions(subscribe func(context.Context, *mcp.SubscribeRequest) error, unsubscribe func(context.Context, *mcp.UnsubscribeRequest) error) Option {
	return func(s *Server) {
		if subscribe == nil {
			subscribe = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		}
		if unsubscribe == nil {
			unsubscribe = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
		}
		s.subscribe, s.unsubscribe = subscribe, unsubscribe
	}
}

// change applies fn to the features and registers the change with every
// live conn.
func (s *Server) change(fn func(f *features, gen uint64)) {
	f := &s.feats
	f.mu.Lock()
	if f.prompts == nil {
		f.prompts, f.resources, f.templates = map[string]promptEntry{}, map[string]resourceEntry{}, map[string]templateEntry{}
	}
	gen := f.gen.Add(1)
	fn(f, gen)
	f.mu.Unlock()
	for _, c := range s.liveConns() {
		c.syncFeatures()
	}
}

// liveConns returns the conns serving now: the stateful sessions' and
// the stateless one.
func (s *Server) liveConns() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := make([]*conn, 0, len(s.conns)+1)
	for c := range s.conns {
		conns = append(conns, c)
	}
	if s.stateless != nil {
		conns = append(conns, s.stateless)
	}
	return conns
}

// syncFeatures registers with the conn's mcp.Server what changed in the
// host's features since it last did: cheap when nothing did, so that it
// runs before every request (a conn made while a feature changed catches
// up there).
func (c *conn) syncFeatures() {
	f := &c.s.feats
	if c.feats.gen.Load() == f.gen.Load() {
		return
	}
	c.feats.mu.Lock()
	defer c.feats.mu.Unlock()
	f.mu.Lock()
	gen := f.gen.Load()
	if c.feats.gen.Load() == gen {
		f.mu.Unlock()
		return
	}
	var addP []promptEntry
	var addR []resourceEntry
	var addT []templateEntry
	var rmP, rmR, rmT []string
	a := &c.feats
	if a.prompts == nil {
		a.prompts, a.resources, a.templates = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	}
	for k, e := range f.prompts {
		if a.prompts[k] != e.gen {
			addP, a.prompts[k] = append(addP, e), e.gen
		}
	}
	for k := range a.prompts {
		if _, ok := f.prompts[k]; !ok {
			rmP = append(rmP, k)
			delete(a.prompts, k)
		}
	}
	for k, e := range f.resources {
		if a.resources[k] != e.gen {
			addR, a.resources[k] = append(addR, e), e.gen
		}
	}
	for k := range a.resources {
		if _, ok := f.resources[k]; !ok {
			rmR = append(rmR, k)
			delete(a.resources, k)
		}
	}
	for k, e := range f.templates {
		if a.templates[k] != e.gen {
			addT, a.templates[k] = append(addT, e), e.gen
		}
	}
	for k := range a.templates {
		if _, ok := f.templates[k]; !ok {
			rmT = append(rmT, k)
			delete(a.templates, k)
		}
	}
	a.gen.Store(gen)
	f.mu.Unlock()

	if len(rmP) > 0 {
		c.srv.RemovePrompts(rmP...)
	}
	if len(rmR) > 0 {
		c.srv.RemoveResources(rmR...)
	}
	if len(rmT) > 0 {
		c.srv.RemoveResourceTemplates(rmT...)
	}
	for _, e := range addP {
		c.srv.AddPrompt(e.p, e.h)
	}
	for _, e := range addR {
		c.srv.AddResource(e.r, e.h)
	}
	for _, e := range addT {
		c.srv.AddResourceTemplate(e.t, e.h)
	}
}

// offers reports whether the server offers the feature of method, so that
// a method of one it does not (no prompts, no resources, no completion)
// is answered -32601, as the capabilities say, rather than with the empty
// lists of go-sdk.
func (s *Server) offers(method string) bool {
	f := &s.feats
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.HasPrefix(method, "prompts/"):
		return len(f.prompts) > 0
	case strings.HasPrefix(method, "resources/"):
		return len(f.resources) > 0 || len(f.templates) > 0
	case method == "completion/complete":
		return s.complete != nil
	}
	return true
}
