package lint

// defaultVerbs are the verbs a tool name may start with.
var defaultVerbs = []string{
	"acknowledge", "add", "analyze", "append", "apply", "approve", "archive", "assign",
	"attach", "backup", "book", "browse", "build", "calculate", "cancel", "check",
	"clear", "clone", "close", "commit", "compare", "compile", "complete", "compute",
	"configure", "confirm", "connect", "convert", "copy", "count", "create", "decline",
	"decrypt", "delete", "deploy", "describe", "detect", "diff", "disable", "dismiss",
	"download", "duplicate", "edit", "enable", "encrypt", "estimate", "evaluate", "execute",
	"explain", "export", "extract", "fetch", "fill", "filter", "find", "fork",
	"format", "generate", "get", "grant", "import", "index", "inspect", "install",
	"invite", "invoke", "label", "launch", "link", "list", "load", "lock",
	"lookup", "make", "mark", "merge", "move", "notify", "open", "parse",
	"pause", "pin", "ping", "plan", "play", "post", "predict", "preview",
	"publish", "pull", "push", "query", "read", "rebase", "reboot", "recommend",
	"record", "refresh", "register", "reject", "release", "reload", "remove", "rename",
	"render", "reopen", "reply", "report", "request", "rerun", "reset", "resolve",
	"restart", "restore", "resume", "retry", "revert", "review", "revoke", "rollback",
	"rotate", "run", "sample", "save", "scan", "schedule", "score", "search",
	"send", "set", "share", "show", "sign", "snapshot", "sort", "split",
	"start", "stop", "submit", "subscribe", "suggest", "summarize", "sync", "tag",
	"take", "test", "toggle", "track", "transfer", "transcribe", "transform", "translate",
	"trigger", "unassign", "unlock", "unpin", "unsubscribe", "update", "upload", "upsert",
	"validate", "verify", "view", "watch", "write",
	// added after trying the rules on public MCP servers
	"annotate", "checkout", "classify", "click", "compress", "decompress", "drag", "echo",
	"embed", "follow", "gzip", "hover", "log", "manage", "navigate", "press",
	"prioritize", "print", "rank", "react", "reprioritize", "scroll", "select", "simulate",
	"sleep", "stage", "star", "think", "unarchive", "unfollow", "unlink", "unresolve",
	"unstage", "unstar", "unwatch", "unzip", "wait", "zip",
	// common in business and operations tools
	"analyse", "ask", "authorize", "ban", "bookmark", "charge", "deprovision", "drop",
	"escalate", "forward", "init", "initialize", "insert", "join", "leave", "modify",
	"mute", "pay", "provision", "prioritise", "refund", "retrieve", "scale", "summarise",
	"suspend", "terminate", "truncate", "unmute",
}

// defaultGenericNames are names that say nothing of what a tool acts on.
var defaultGenericNames = []string{
	"search", "run", "process", "execute", "get", "get_data", "fetch_data", "do",
	"handle", "query", "call", "invoke", "tool", "action", "data", "info", "get_info",
	"helper", "util", "misc", "manage", "update", "update_data", "process_data",
	"run_tool", "do_action", "handle_request",
}

// defaultEnumHintNames are argument names that usually hold one of a closed
// set of values.
var defaultEnumHintNames = []string{
	"status", "state", "mode", "kind", "type", "language", "lang", "sort", "sort_by",
	"order", "order_by", "direction", "unit", "units", "format", "level", "priority",
	"severity", "category", "visibility", "method", "role", "scope", "granularity",
	"interval", "period", "region", "currency", "environment", "env", "strategy",
}

// defaultUseMarkers are phrases that say when to use a tool.
var defaultUseMarkers = []string{
	"use when", "use this", "use it", "use for", "use to", "use if", "call when", "call this",
	"useful for", "useful when", "helpful for", "helpful when", "prefer this", "when you need",
	"when the user",
}

// defaultAvoidMarkers are phrases that say what a tool does not do or when
// another tool fits better.
var defaultAvoidMarkers = []string{
	"do not use", "don't use", "not for", "does not", "doesn't", "never", "instead", "not use",
	"only works", "only for", "only if", "only when", "only within", "deprecated", "rather than",
	"unless", "avoid", "prefer ", "cannot", "can't", "won't", "is not", "are not",
}
