package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// introspect asks the issuer about token (RFC 7662) and returns the claims
// of an active one. The answer's iss, aud, exp and sub are checked as a
// JWT's are, so an issuer that leaves out aud or exp has its tokens
// refused.
func (v *Verifier) introspect(ctx context.Context, token string) (map[string]any, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.introspection, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.clientID), url.QueryEscape(v.clientSecret))
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err)
	}
	defer resp.Body.Close()
	var claims map[string]any
	if err := readJSON(resp, v.introspection, &claims); err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err)
	}
	if active, _ := claims["active"].(bool); !active {
		return nil, invalid("the issuer says the token is not active")
	}
	if _, ok := claims["iss"]; !ok {
		claims["iss"] = v.issuer // RFC 7662 makes iss optional: the answer is the issuer's own
	}
	return claims, nil
}
