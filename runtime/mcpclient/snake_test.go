package mcpclient

import "testing"

func TestSnake(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"getUser", "get_user"},
		{"get-user", "get_user"},
		{"files.read", "files_read"},
		{"HTTPRequest", "http_request"},
		{"get_note", "get_note"},
		{"readV2Items", "read_v2_items"},
		{"a--b", "a_b"},
		{"_x_", "x"},
		{"ÄpfelZählen", "Äpfel_zählen"},
	} {
		if got := snake(tc.in); got != tc.want {
			t.Errorf("snake(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
