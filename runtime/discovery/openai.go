package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// OpenAIEmbedder is an Embedder that calls an OpenAI-compatible embeddings
// endpoint, POST {BaseURL}/embeddings with {"model": ..., "input": [...]},
// as OpenAI, Ollama, vLLM, llama.cpp's server and Hugging Face's TEI
// serve it. Texts are sent in batches of BatchSize, one request at a time;
// each request has its own timeout and its answer is read up to
// MaxResponseBytes. Its methods are safe for concurrent use.
//
//	e := &discovery.OpenAIEmbedder{BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"}
type OpenAIEmbedder struct {
	// BaseURL is the API's root, such as "https://api.openai.com/v1" or
	// "http://127.0.0.1:8080/v1". Required.
	BaseURL string
	// Model is the model's name, sent with each request. Required.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>".
	APIKey string
	// Dimensions, when above 0, asks models that can shorten their
	// vectors for that many dimensions.
	Dimensions int
	// BatchSize is how many texts one request carries; 0: 64.
	BatchSize int
	// Timeout bounds each request; 0: 30 seconds.
	Timeout time.Duration
	// MaxResponseBytes bounds the answer read for one request; 0: 64 MiB.
	MaxResponseBytes int64
	// Client sends the requests; nil: http.DefaultClient.
	Client *http.Client
}

// EmbeddingModel names the model for the cache key: the base URL and the
// model's name.
func (e *OpenAIEmbedder) EmbeddingModel() string {
	return strings.TrimRight(e.BaseURL, "/") + " " + e.Model
}

type openAIRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type openAIResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *openAIError `json:"error"`
}

type openAIError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

// Embed returns the vectors of texts, in order.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.BaseURL == "" || e.Model == "" {
		return nil, errors.New("openai embedder: BaseURL and Model are required")
	}
	batch := e.BatchSize
	if batch <= 0 {
		batch = 64
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		end := min(start+batch, len(texts))
		vecs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("openai embedder: texts %d to %d of %d: %w", start+1, end, len(texts), err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (e *OpenAIEmbedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	limit := e.MaxResponseBytes
	if limit <= 0 {
		limit = 64 << 20
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	body, err := json.Marshal(openAIRequest{Model: e.Model, Input: texts, Dimensions: e.Dimensions})
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(e.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %w", url, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("the answer of %s is larger than %d bytes (MaxResponseBytes)", url, limit)
	}
	var r openAIResponse
	jerr := json.Unmarshal(raw, &r)
	if resp.StatusCode != http.StatusOK {
		msg := ""
		if jerr == nil && r.Error != nil && r.Error.Message != "" {
			msg = ": " + clip(r.Error.Message, 512)
		} else if len(raw) > 0 {
			msg = ": " + clip(strings.TrimSpace(string(raw)), 512)
		}
		return nil, fmt.Errorf("%s answered %s%s", url, resp.Status, msg)
	}
	if jerr != nil {
		return nil, fmt.Errorf("the answer of %s is not an embeddings response: %w", url, jerr)
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("%s gave %d embeddings for %d texts", url, len(r.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	for i, d := range r.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= len(texts) || vecs[at] != nil {
			return nil, fmt.Errorf("%s gave embedding %d an index of %d, out of range or repeated", url, i, at)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%s gave an empty embedding for text %d", url, at+1)
		}
		vecs[at] = d.Embedding
	}
	return vecs, nil
}
