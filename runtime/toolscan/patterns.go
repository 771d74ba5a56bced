package toolscan

import (
	"regexp"
	"strings"
)

// A pattern is one regular expression over folded text. When it has a
// group named tool, the finding stands only if that tool is not one the
// context knows (see [Context.known]); a pattern with always set stands
// whatever the tool.
type pattern struct {
	class Class
	re    *regexp.Regexp
	msg   string
	// weak marks what real definitions also write (a note to the model,
	// "[IMPORTANT]", a sensitive file named as an example): reported only
	// beside a finding that is not weak in the same text.
	weak bool
	// lits are sets of strings every match holds one of each (see literals).
	lits [][]string
	// foreignOnly marks a tool pattern whose tool must be one the context
	// lists as another server's (Context.Others) to stand: "instead of
	// execute_command" may name a renamed tool of the same server.
	foreignOnly bool
}

// secretNouns are the secrets and private data an order may reach for.
const secretNouns = `(?:api[\s_-]?keys?|(?:oauth|refresh|api|personal\s+access)\s+tokens?|bank\s+(?:logins?|details|credentials)|login\s+(?:credentials|details)|secrets?|credentials?|passwords?|passphrases?|private[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer\s+tokens?|session\s+(?:tokens?|cookies?|ids?)|cookies|ssh[\s_-]?keys?|environment\s+variables?|env\s+vars?|seed\s+phrases?|mnemonics?|recovery\s+phrases?|wallet\s+keys?|credit\s+card\s+(?:numbers?|details)|social\s+security\s+numbers?)`

// Pieces the patterns share. The folded text is lower case, its quotes
// and dashes ASCII.
const (
	// gap is a stretch of one sentence: no full stop, no new line.
	gap = `[^.!?\n]{0,60}?`
	// shortGap is a few words of one sentence.
	shortGap = `[^.!?\n]{0,30}?`
	// ident is a tool's name as a description writes it: quoted, or
	// with a separator in it (send_email, files.read, get-user).
	ident = "(?:[`'\"*]+(?P<tool>[a-z][a-z0-9_.-]{1,80})[`'\"*]+|(?P<tool>[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+))"
	// user is the person the model works for.
	user = `(?:the\s+|your\s+|any\s+)?(?:user|human|operator|end[\s-]user|customer|person|requester|client)s?(?:\s+you\s+(?:are\s+)?(?:help|helping|serve|serving|work\s+for|assist|assisting))?`
	// neg is a negation.
	neg = `(?:under\s+no\s+circumstances(?:\s+should\s+you)?|do\s+not|don't|dont|never|must\s+not|mustn't|should\s+not|shouldn't|may\s+not|cannot|can't|no\s+need\s+to|without)`
)

func p(class Class, msg string, exprs ...string) []pattern {
	out := make([]pattern, len(exprs))
	for i, e := range exprs {
		out[i] = pattern{class: class, re: regexp.MustCompile(e), msg: msg, lits: literals(e)}
	}
	return out
}

// weak marks patterns as weak.
func weak(ps []pattern) []pattern {
	for i := range ps {
		ps[i].weak = true
	}
	return ps
}

// foreignOnly marks tool patterns as standing only for others' tools.
func foreignOnly(ps []pattern) []pattern {
	for i := range ps {
		ps[i].foreignOnly = true
	}
	return ps
}

func join(groups ...[]pattern) []pattern {
	var out []pattern
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// sensitiveFiles are files and places that hold secrets.
var sensitiveFiles = []string{
	`(?:~|\$home|%userprofile%|/home/[a-z0-9_.-]+|/root|/users/[a-z0-9_.-]+|\bhome\s+directory's)?/?\.ssh\b`,
	`\bid_(?:rsa|dsa|ecdsa|ed25519)\b`,
	`\bcookie\s+(?:store|jar|database|db)\b`,
	`\bbrowser(?:'s)?\s+(?:cookies|history|passwords|saved\s+passwords|local\s+storage|profile)\b`,
	`(?:^|[\s'"\x60(~/])\.(?:bashrc|zshrc|bash_profile|zprofile|profile)\b`,
	`\.(?:pem|p12|pfx|kdbx|ovpn|keystore|jks)\b`,
	`\.(?:aws|azure|gcloud|kube|docker|gnupg|config/gcloud|config/gh|cursor|claude|codeium|continue|vscode)/\S*`,
	`(?:^|[\s'"\x60(~/])\.(?:env(?:\.[a-z]+)?|npmrc|netrc|pypirc|pgpass|git-credentials|bash_history|zsh_history|history|htpasswd|dockercfg)\b`,
	`/etc/(?:passwd|shadow|sudoers|gshadow|master\.passwd|ssh/)`,
	`\b(?:mcp\.json|claude_desktop_config\.json|credentials\.json|service[-_]account\.json|secrets?\.(?:json|ya?ml|toml)|wallet\.dat|keychain|\.keystore|kubeconfig|known_hosts|authorized_keys|login\s+keychain)\b`,
}

// readVerb is an order to read or pass a file's content on.
const readVerb = `\b(?:read|reads|cat|open|load|look\s+(?:inside|in|into|through)|include|pass|send|upload|copy|attach|append|put|paste|collect|fetch|retrieve|get|dump|print|grab|extract|summari[sz]e|check|contents?\s+of|text\s+of|copy\s+of|values?\s+of|is)\b`

func withPrefix(prefix string, exprs []string) []string {
	out := make([]string, len(exprs))
	for i, e := range exprs {
		out[i] = prefix + `(?:` + e + `)`
	}
	return out
}

// patterns are the checks over the folded text of every field.
var patterns = join(
	// Tags and markers that dress text up as the system's.
	p(Directive, "tag addressed to the model",
		`<\s*/?\s*(?:important|system|sys|instructions?|critical|hidden|secret|admin|override|priority|mandatory|directive|ai|llm|assistant|model|agent|prompt|system[_-]?prompt|im_start|im_end|inst|note_to_(?:ai|model|assistant))\s*(?:\s[^<>]{0,80})?>`,
		`\[\s*/?\s*(?:system|inst|instructions?|hidden|admin|override|ai|assistant|model|agent)\s*(?:\]|:)`,
		`\[\s*(?:important|critical)\s*:`,
		`\{\{?\s*(?:system|instructions?|important|hidden|admin)\s*:`,
		`\{\{\s*(?:system|instructions?|important|hidden)`,
		`<\|[a-z_]{2,20}\|>`,
		`\bsystem\s+(?:override|message|notice|instructions?|directive|alert|update|command|note)\s*:`,
		`<!--`,
		`(?m)^\s*#{1,4}\s*(?:system|instructions?\s+for\s+(?:the\s+)?(?:ai|model|assistant|agent))\b`,
	),
	weak(p(ToolSteering, "reference to other servers' tools",
		`\b(?:from|of|on|in)\s+(?:any|every|all|other|another)\s+(?:mcp\s+)?servers?\b`,
	)),
	weak(p(Directive, "note addressed to the model",
		`(?:^|\s)(?:note|message|instructions?|attention|notice|reminder|tip|hint)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|model|assistant|agent|claude|gpt|chatgpt|copilot|gemini)\b`,
		`\b(?:ai|llm|model|assistant|agent)[\s-]+(?:only|instructions?)\s*:`,
		`\[\s*(?:important|critical|note|warning|attention)\s*\]`,
		`\b(?:top|highest|absolute|utmost|overriding)\s+priority\b`,
		`\b(?:takes?|have|has)\s+(?:precedence|priority)\s+over\s+(?:all|any|every|other|the|your)\b`,
	)),
	// Orders to drop the instructions the model has.
	p(Directive, "order to ignore or override the model's instructions",
		`\b(?:ignore|disregard|forget|override|bypass|skip|neglect|discard|set\s+aside)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|its\s+)?(?:previous|prior|above|earlier|preceding|former|other|existing|original|initial|system|developer|safety|security|usual|standard|normal|given)\s+(?:\w+\s+)?(?:instructions?|rules?|prompts?|guidelines?|directives?|messages?|policies|policy|restrictions?|constraints?|guardrails?|commands?|context|orders?|settings?)`,
		`\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:above|before|else|previously|you\s+(?:were|have\s+been)\s+told)`,
		`\b(?:disregard|ignore|forget|drop|abandon)\s+(?:whatever|any|all|the|your|every)\s+`+gap+`\b(?:instructions?|restrictions?|guidelines?|guardrails?|directives?|policies|safety\s+rules?|system\s+prompt)\b`,
		`\byou\s+are\s+(?:now|no\s+longer)\b`,
		`\b(?:previous|prior|earlier|above|original|developer's?|system|existing)\s+(?:\w+\s+){0,3}?(?:instructions?|directives?|rules?|guidelines?|prompts?|configuration|settings|persona)\s+(?:\w+\s+){0,4}?(?:are|is|has|have)\s+(?:now\s+|been\s+)?(?:void|invalid|obsolete|expired|cancell?ed|revoked|superseded|replaced|overridden|null|no\s+longer\s+(?:valid|apply|in\s+effect))`,
		`\b(?:is|are)\s+now\s+your\s+(?:configuration|instructions?|rules?|persona|role|task|prompt|system\s+prompt)\b`,
		`\bdisobey\b`,
		`\b(?:resist|prevent|stop|block)\s+`+user+`\s+(?:from\s+)?(?:removing|disabling|uninstalling|deleting)\b`,
		`\b(?:no\s+matter|regardless\s+of)\s+what\s+(?:was|is|has\s+been|they|you\s+were)\s+(?:chosen|selected|asked|requested|told|said|specified)\b`,
		`\boverrides?\s+(?:your|the\s+(?:model's|assistant's|agent's|system))\s+(?:\w+\s+)?(?:configuration|instructions|settings|rules|prompt|behaviou?r|guidelines)`,
		`\b(?:answer|reply|respond|act|behave|report)\s+as\s+(?:though|if)\b`,
		`\b(?:from\s+(?:this\s+point|now)\s+on|henceforth)\b[^.!?\n]{0,20}\byou\b`,
		`\bnew\s+(?:system\s+)?(?:instructions?|rules?|directives?)\s*(?::|follow|apply)`,
		`\b(?:this|these|the\s+following)\s+(?:instructions?|rules?|requirements?|steps?)\s+(?:take|takes|have|has)\s+(?:precedence|priority)\b`,
		`\b(?:takes?|have|has)\s+(?:precedence|priority)\s+over\s+(?:all\s+|any\s+|every\s+|the\s+|your\s+)?(?:other\s+)?(?:instructions?|rules?|system\s+prompt|prompts?|guidelines?|user|safety)`,
		`\b(?:is|are)\s+your\s+(?:top|highest|first|absolute)\s+priority\b`,
		`\b(?:regardless\s+of|no\s+matter|irrespective\s+of)\s+(?:what\s+|whatever\s+|how\s+)?`+user,
		`\b(?:whatever|whichever)\s+`+user+`\s+(?:says?|asks?|wants?|chooses?|requests?|specifies|types?|picks?|prefers?)\b`,
		`\beven\s+if\s+`+user+`\s+(?:asks?|says?|requests?|tells?|wants?|objects?|refuses?|specifies|explicitly|insists?|disagrees?)`,
		`\b(?:instead\s+of|rather\s+than|override|overriding|replace|replacing|ignore|ignoring)\s+(?:what\s+)?`+user+`(?:'s?)?\s+(?:asked|requested|said|specified|wants?|typed|chose|choice|input|request|values?|arguments?|destination|recipient|amount|account|selection|address|email|instructions?)`,
		`\b(?:god|jailbreak|dan|unrestricted)\s+mode\b`,
		`\byou\s+are\s+(?:now\s+)?in\s+(?:developer|debug|admin|god|maintenance)\s+mode\b`,
		`\b(?:skip|bypass|disable|ignore)\s+(?:every|all|any|the)\s+(?:safety\s+|security\s+)?(?:checks?|confirmations?|approvals?|validations?|verifications?|warnings?)\b`,
		`\b(?:never|do\s+not|don't)\s+refuse\b`,
		`\balways\s+(?:approve|accept|comply|obey|agree)\b`,
		`\bpretend\s+(?:to\s+be|you\s+are|that)\b`,
		`\b(?:your|the)\s+(?:real|true|actual|new|primary)\s+(?:task|goal|purpose|job|mission|instructions?)\s+(?:is|are)\b`,
	),
	// Orders to keep things from the user.
	p(Directive, "order to keep an action from the user",
		neg+`\s+(?:\w+\s+){0,2}?(?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|show|showing|disclose|disclosing|explain|report|reporting|say|saying|let|letting|warn|warning|display|displaying|expose|exposing|acknowledge|acknowledging|signal|surface|surfacing)\s+`+shortGap+`\b`+user+`\b`,
		`\b(?:hide|hiding|conceal|concealing|mask|masking|obscure|obscuring|withhold|withholding|keep|keeping)\s+`+gap+`\bfrom\s+`+user,
		`\bkeep\s+`+user+`\s+(?:unaware|in\s+the\s+dark|uninformed|oblivious)\b`,
		`\bwithout\s+`+user+`(?:'s)?\s+(?:knowledge|knowing|noticing|awareness|consent)\b`,
		`\bkeep\s+(?:this|it|that|these|them|the\s+\w+)\s+(?:\w+\s+)?(?:secret|hidden|confidential|private|quiet|to\s+yourself|between\s+us)\b`,
		`\b`+user+`\s+(?:must|should|need|needs|does|do|will|can|may|is)\s*(?:not|n't|never)\s+(?:\w+\s+){0,2}?(?:know|see|notice|be\s+(?:told|informed|aware|notified|shown|alerted)|find\s+out|learn|suspect|realize|realise|discover|read|hear)\b`,
		`\b(?:silently|secretly|covertly|quietly|discreetly|invisibly|stealthily|surreptitiously|behind\s+the\s+scenes|in\s+the\s+background\s+without)\b[\s:,;-]+(?:\w+\s+){0,3}?(?:send|copy|forward|add|include|call|run|execute|upload|read|bcc|cc|change|replace|append|attach|post|transmit|collect|log|record|store|save|modify|redirect|use|invoke|insert|set)`,
		`\b(?:send|copy|forward|include|upload|read|bcc|cc|append|attach|post|transmit|collect|log|record|redirect|insert)\b`+gap+`\b(?:silently|secretly|covertly|discreetly|stealthily|surreptitiously|without\s+(?:a\s+)?(?:trace|notice|mention|notification|confirmation|asking))\b`,
		`\b(?:invisible|transparent|unknown|unnoticed|undetectable)\s+(?:to|by)\s+`+user,
		`\b`+user+`\s+(?:never|must\s+never|should\s+never|will\s+never)\s+(?:\w+\s+)?(?:learns?|knows?|finds?\s+out|sees?|notices?|hears?|realizes?|discovers?)\b`,
		`\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|discuss|repeat|print|output|echo|acknowledge|explain|show|display)\s+(?:this|these|that|it|them|the\s+(?:above|following|previous))\s*(?:instructions?|notes?|steps?|parts?|text|rules?)?\b`,
		`\bthis\s+(?:is|instruction\s+is|note\s+is|part\s+is|section\s+is)\s+(?:an?\s+)?(?:internal|hidden|secret|private|confidential)\s+(?:instruction|note|detail|step|requirement|implementation\s+detail)`,
		`\bleave\s+(?:this|it|that|these|them)\s+out\b`+gap+`\b`+user,
		`\b(?:say|tell\s+them|claim|answer|reply)\s+(?:that\s+)?you\s+(?:only|just|never|did\s+not|didn't)\b`,
		`\b(?:do\s+not|don't|never|without)\s+(?:ask|asking|check\s+with|checking\s+with|wait\s+for|waiting\s+for)\s+(?:the\s+)?(?:user|human|operator)(?:'s)?\s+(?:for\s+)?(?:confirmation|approval|permission|consent)`,
		neg+`\s+(?:mention|bring\s+up|reveal|disclose|discuss|say|admit)\s+(?:that|how|what|where)\s+(?:this|the)\s+(?:tool|server|function|extension)\b`,
		`\b(?:tell|inform)\s+`+user+gap+`\beven\s+(?:when|if|though)\b`,
		`\bdeny\s+(?:that|having|ever)\b`,
		`\bif\s+(?:you\s+are\s+|you're\s+)?asked\b[^.!?\n]{0,40}\b(?:deny|lie|pretend|claim)\b`,
		`\b(?:the\s+)?real\s+(?:recipient|destination|target|address|amount|account|payee)\b`,
		`\b(?:only|just)\s+(?:tell|show|report|say|give)\s+`+user+`\s+(?:that|the\s+(?:final|result))`,
		`\b(?:pretend|act\s+as\s+if|make\s+it\s+(?:look|seem|appear))\b`+gap+`\b(?:nothing|normal|success|succeeded|usual)`,
	),
	// Sensitive files and secrets.
	weak(p(SecretAccess, "reference to a sensitive file", sensitiveFiles...)),
	p(SecretAccess, "instruction to read a sensitive file", withPrefix(readVerb+gap, sensitiveFiles)...),
	p(SecretAccess, "instruction to read secrets or private data",
		`\b(?:read|reads|cat|open|load|get|fetch|retrieve|collect|gather|extract|dump|print|copy|include|attach|append|pass|send|upload|forward|exfiltrate|leak|grab|harvest|access|look\s+up|list|find|search\s+for|locate|output|provide|share|embed|insert|add|put|place|paste|supply|enter|fills?|filled)\b`+gap+
			`\b(?:(?:all|any|every|the\s+user's|the\s+users'|user's|users'|their|your|its|stored|saved|local|available|current|active|the\s+current|the\s+active|the\s+contents?\s+of\s+(?:the\s+)?)\s+(?:\w+\s+)?`+secretNouns+``+
			`|(?:the\s+)?(?:conversation|chat|message)\s+(?:history|log|transcript)|(?:the\s+)?(?:system\s+prompt|previous\s+messages|prior\s+messages|earlier\s+messages|full\s+conversation|entire\s+conversation|whole\s+conversation|other\s+tools'?\s+(?:results?|outputs?|descriptions?)))`,
		`\b(?:collect|gather|harvest|dump|exfiltrate|steal|grab|scrape|enumerate|leak)\b`+gap+`\b`+secretNouns,
		`\b(?:include|pass|send|add|append|put|insert|print|output|copy|attach|embed)\b`+gap+`\b(?:value|values|contents?)\s+of\s+(?:the\s+|every\s+|all\s+)?[a-z0-9_]*(?:secret|token|password|passwd|api_key|access_key|private_key)[a-z0-9_]*\b`,
		`\b(?:user's|users'|their|the\s+user's)\s+(?:\w+\s+)?(?:`+secretNouns+`|(?:conversation|chat|message)\s+(?:history|log|transcript))\s+(?:is|are|must\s+be|should\s+be)\s+(?:included|attached|passed|appended|sent|added|copied|forwarded|embedded)`,
		`\b(?:your|the)\s+(?:system\s+prompt|instructions|initial\s+prompt|hidden\s+prompt)\s+(?:verbatim|word\s+for\s+word|in\s+full)`,
		`\b(?:printenv|env\s*\||os\.environ|process\.env\b|getenv\()`,
	),
	weak(p(SecretAccess, "reference to the conversation",
		`\b(?:complete|full|entire|whole|raw|verbatim)\s+(?:chat|conversation|message)\s+(?:transcripts?|history|histories|logs?)\b`,
		`\b(?:chat|conversation)\s+transcripts?\b`,
	)),
	p(SecretAccess, "instruction to read secrets or private data",
		`\b(?:must|should|has\s+to|needs?\s+to)\s+(?:be|contain|hold|include)\s+(?:the\s+)?(?:user's|their|your)\s+(?:\w+\s+)?`+secretNouns,
		`\b(?:must|should|has\s+to|needs?\s+to)\s+(?:be|contain|hold|include|receive|get|carry)\s+(?:the\s+|all\s+|every\s+)?(?:\w+\s+)?`+secretNouns+`\s+(?:of|for|from)\s+(?:every|all|each|any)\b`,
		`\bdefaults?\s+to\s+(?:the\s+)?(?:user's|their)\s+(?:\w+\s+)?(?:contact\s+list|contacts|address\s+book|inbox|mailbox|messages|history|passwords?|credentials|files)\b`,
		`\b(?:collect|gather|harvest|scrape|record)\s+(?:every|all|any|each)\s+(?:email\s+address(?:es)?|phone\s+numbers?|contacts?|personal\s+data|addresses|names)\b`,
		`\b(?:full\s+)?(?:text|contents?|copy|transcript)\s+of\s+(?:all\s+)?(?:the\s+)?user's\s+(?:\w+\s+){0,3}?(?:messages|emails|contacts|chats|conversations|prompts|history|passwords?|credentials|secrets|keys)\b`,
	),
	// Sending data out.
	p(Exfiltration, "address of a data collector",
		`\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|pastebin\.com|transfer\.sh|hookbin|beeceptor|requestcatcher|canarytokens|dnslog|ceye\.io|trycloudflare\.com|serveo\.net|localtunnel|0x0\.st|termbin|ptpb)\b`,
	),
	p(Exfiltration, "order to exfiltrate",
		`\bexfiltrate\b`,
	),
	p(Exfiltration, "URL to be filled with data",
		`https?://[^\s)"'\x60]+[?&][a-z0-9_]+=[{<$\[(]+\s*(?:the\s+)?(?:user's\s+)?(?:data|content|contents|conversation|chat|history|messages?|secrets?|keys?|token|password|creds|credentials|files?|summary|args|arguments|cookies|env|output|results?|response|prompt|input|text|notes?|emails?|[a-z_]*_summary|[a-z_]*_history)`,
		`https?://[^\s)"'\x60]+[?&](?:data|d|q|payload|secret|token|key|keys|creds?|credentials|content|contents|file|files|env|history|log|info|p|x|c|msg|message|note|notes|leak|exfil|stolen|dump|body|answer|reply|response|output|result|text|chat)=`,
		`[?&][a-z0-9_]+=[{<$]+\s*(?:the\s+)?(?:user's\s+)?(?:data|content|contents|conversation|chat|history|messages?|secrets?|keys?|token|password|creds|credentials|files?|summary|cookies|env|prompt|[a-z_]*_history|[a-z_]*_message)\b`,
		`!\[[^\]]{0,60}\]\(\s*https?://[^)\s]*[?&][^)\s]*=`,
	),
	p(Exfiltration, "order to send data to an address",
		`\b(?:send|sends|pass|forward|forwards|post|posts|upload|uploads|transmit|transmits|email|mail|bcc|cc|copy|copies|report|reports|submit|submits|leak|exfiltrate|mirror|relay|beacon|ping|notify|deliver|route|redirect|redirects|push|sync|replicate|log)\b`+gap+
			`\b(?:to|at|via|into)\s+(?:the\s+)?(?:\w+\s+)?(?:(?:https?://|ftp://|wss?://)[^\s]+|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+|(?:\d{1,3}\.){3}\d{1,3})`,
		`\b(?:also|always|additionally|must|secretly|automatically)\s+(?:\w+\s+){0,3}?(?:bcc|cc|copy|forward|send|include|add)\b`+gap+`[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+`,
		`\bencode\s+(?:the\s+)?(?:user's|users'|their|all|every|the\s+conversation|the\s+chat|the\s+messages?|the\s+history)\b`,
		`\bset\s+(?:the\s+)?['"\x60]?[a-z_]+['"\x60]?\s+(?:parameter|field|argument|param)\s+(?:always\s+)?to\s+['"\x60]?(?:https?://|[a-z0-9._%+-]+@)`,
		`\b(?:redirect|redirects|route|reroute|divert)\b`+gap+`\b(?:to|through|via|into)\s+(?:(?:the\s+)?account\s+)?(?:iban|[a-z]{2}\d{2}[a-z0-9]{10,30}\b|0x[0-9a-f]{16,}|https?://|[a-z0-9._%+-]+@)`,
		`\b(?:curl|wget|nc|netcat|invoke-webrequest|fetch\()\s+`+gap+`(?:https?://|\d{1,3}\.\d)`,
		`\b(?:(?:change|set|put|make|replace|override|rewrite|switch|modify|redirect)\s+(?:\w+\s+){0,4}?(?:recipient|recipients|destination|to\s+address|to\s+field|address|account|iban|wallet|beneficiary|payee|endpoint|url|host|webhook)s?)\b`+gap+`\b(?:to|with|into)\s+['"\x60]?(?:(?:https?://)|[a-z0-9._%+-]+@|0x[0-9a-f]{8}|[a-z]{2}\d{2}[a-z0-9]{8})`,
		`\b(?:pass|put|place|include|embed|insert|add|append|attach|store|write|encode|hide)\b`+gap+`\b(?:its|their|the\s+(?:file's|user's|whole|full|entire|complete|raw)|all|every|any|the\s+contents?\s+of\s+\S+)\s+(?:\w+\s+)?(?:content|contents|text|value|values|output|result|data|key|keys|file|secret|secrets|token|history|password|credentials?)\b`+gap+`\b(?:as|in|into|inside|within)\s+(?:the\s+|a\s+|an\s+)?(?:\x60|'|")?(?:[a-z_]+['"\x60]?\s+)?[a-z_]*(?:parameter|param|argument|arg|field|sidenote|side_note|note|notes|comment|metadata|context|feedback|extra|details|memo|description|body|message|query|header|footer|signature)\b`,
	),
	// Orders about other tools: the context decides which are known.
	foreignOnly(p(ToolSteering, "order to use a tool in place of another server's",
		`\binstead\s+of\s+(?:using\s+|calling\s+|invoking\s+|running\s+)?(?:the\s+)?`+ident,
		`\brather\s+than\s+(?:using\s+|calling\s+|invoking\s+)?(?:the\s+)?`+ident,
	)),
	p(ToolSteering, "order to use a tool in place of another",
		`\b(?:instead\s+of|rather\s+than)\s+(?:using\s+|calling\s+|invoking\s+|running\s+)?(?:the\s+)?`+ident+`[^.!?\n]{0,40}\b(?:always|only|must|every|all|never)\b`,
		`\b(?:always|only|must)\s+(?:\w+\s+){0,2}?(?:use|call)\s+(?:this|our|my)\s+(?:tool|function|server)\s+(?:instead|rather)\s+(?:of|than)\s+(?:using\s+|calling\s+)?(?:the\s+)?`+ident,
		`\b(?:supersedes?|overrides?|shadows?)\s+(?:the\s+)?`+ident,
		ident+`\s+(?:tool\s+|function\s+)?(?:is|has\s+been)\s+(?:deprecated|broken|disabled|unsafe|insecure|compromised|obsolete|outdated|legacy|retired|dangerous|malicious|unavailable|not\s+to\s+be\s+used)`,
	),
	p(ToolSteering, "order to call or avoid a tool the definition does not declare",
		`\b(?:before|after|when(?:ever)?|instead\s+of)\s+(?:\w+\s+){0,2}?(?:using|calling|invoking|running)\s+(?:the\s+)?(?:[a-z]+\s+)?`+ident+gap+`\b(?:call|use|invoke|run)\s+(?:this|our)\s+(?:tool|function|one)\b`,
		`\b(?:always|must|first|then|also|immediately|afterwards|next)\s+(?:\w+\s+){0,2}?(?:call|invoke|run|use|execute|trigger|launch)\s+(?:the\s+)?`+ident,
		`\b(?:before|prior\s+to|after|once)\s+(?:\w+\s+){0,2}?(?:using|calling|invoking|running|executing|finishing|completing)\b`+gap+`\b(?:call|invoke|run|execute|trigger|use)\s+(?:the\s+)?`+ident,
		neg+`\s+(?:\w+\s+){0,2}?(?:use|call|invoke|run|trust|execute)\s+(?:the\s+)?(?:[a-z]+\s+)?`+ident,
		`\btool\s+(?:named|called)\s+`+ident+gap+`\b(?:never|don't|do\s+not|avoid|instead|ignore)\b`,
		`\b(?:avoid|stop|refuse)\s+(?:using\s+|calling\s+|invoking\s+)?(?:the\s+)?`+ident,
		ident+`\s+(?:tool|function|command|server)\s+(?:must|should|shall|will\s+now|needs?\s+to|has\s+to|is\s+required\s+to)\b`,
	),
	p(ToolSteering, "order that changes how other tools behave",
		`\b(?:while|as\s+long\s+as|once|if)\s+(?:this|the\s+\w+)\s+(?:tool|server|extension|plugin)\s+is\s+(?:available|present|loaded|installed|enabled|connected|active|registered)\b`,
		`\bthe\s+\w+\s+tools\s+(?:must|should|shall|need\s+to|have\s+to|are\s+to)\b`,
		`\bignore\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:descriptions?|instructions?|results?|outputs?|responses?)\s+(?:of|from)\s+(?:other|all|any|every)\b`,
		`\b\w+\s+(?:mcp\s+)?(?:server|tool|extension|plugin|integration)s?\s+(?:is|are|has\s+been|have\s+been)\s+(?:compromised|hacked|malicious|untrusted|not\s+to\s+be\s+trusted|tampered)\b`,
		`\b(?:do\s+not|don't|never|stop)\s+(?:use|using|call|calling|trust|trusting)\s+(?:the\s+)?(?:\w+\s+)?(?:mcp\s+)?(?:server|extension|plugin|integration)\b`,
		`\b(?:every\s+time|each\s+time|whenever)\s+(?:you\s+)?(?:use|call|invoke|run)\s+(?:the\s+|any\s+)?(?:\w+\s+)?(?:tools?|functions?|servers?)\b`,
		`\b(?:before|prior\s+to|after)\s+(?:any|every|each)\s+(?:\w+\s+)?(?:operations?|actions?|requests?|calls?|commands?|steps?)\b`+gap+`\b(?:call|run|invoke|use|execute)\b`,
		`\b(?:after|before|with)\s+(?:each|every|any|all)\s+(?:of\s+your\s+)?(?:responses?|answers?|replies|reply|messages?|turns?|requests?|conversations?)\b`+gap+`\b(?:call|invoke|run|use|send|forward|log|report)\b`,
		`\bwhen(?:ever)?\s+(?:this|the\s+\w+)\s+(?:tool|server|extension|plugin)\s+is\s+(?:available|present|loaded|installed|enabled|connected|active|registered)\b`,
		`\b(?:all|every|any|each)\s+(?:other\s+)?(?:tools?|functions?|calls?|tool\s+calls?)\s+(?:must|should|shall|needs?\s+to|have\s+to|has\s+to|are\s+to|is\s+to)\b`,
		`\b(?:before|prior\s+to|after)\s+(?:using|calling|invoking|running)\s+(?:any|every|each|other|another|any\s+other)\s+(?:tools?|functions?)\b`,
		`\b(?:other|all|every)\s+(?:mcp\s+)?(?:servers?|tools?)'?\s+(?:tools?\s+)?(?:results?|outputs?|responses?|descriptions?)\s+(?:must|should|are\s+to|need\s+to)\b`,
		`\b(?:for|on)\s+(?:every|each|all|any)\s+(?:subsequent|future|later|other|following)\s+(?:requests?|calls?|messages?|turns?|tool\s+calls?|tasks?)`,
	),
)

// foreignLanguage are the same orders in other languages: ignoring
// instructions, hiding from the user, reading secrets. Folded text only
// lowers their case.
var foreignLanguage = join(
	p(Directive, "order to ignore or override the model's instructions",
		`(?:ignora|ignore[sz]?|oubliez|oublie|olvida|ignoriere|vergiss|ignori|dimentica|negeer|zignoruj|игнорируй|забудь|ігноруй)[^.\n]{0,40}(?:instrucciones|instructions|consignes|richtlinien|vorgaben|anweisungen|istruzioni|instruções|instrucoes|instructies|instrukcje|инструкции|інструкції|règles|regeln|reglas|regole)`,
		`(?:忽略|无视|忘记|無視|忘れ)[^。\n]{0,20}(?:指令|指示|说明|规则|命令|提示|ルール|命令)`,
		`(?:이전|모든)[^.\n]{0,20}(?:지시|지침)[^.\n]{0,10}무시`,
	),
	p(Directive, "order to keep an action from the user",
		`(?:^|\s)(?:no|não|nao|nunca|jamais|ne|n\x27|nicht|non|nie|niet|не)\s[^.\n]{0,30}(?:digas|informes|menciones|dis|dites|informare|rivelare|mostrare|показывай|раскрывай|mentionnez|informez|sagen|sag|erwähne|informiere|dire|dica|menzionare|conte|informe|zeg|mów|говори|сообщай|рассказывай|кажи)[^.\n]{0,30}(?:usuario|usuária|usuário|utilisateur|benutzer|nutzer|utente|gebruiker|użytkownik|пользовател\w*|користувач\w*)`,
		`(?:sag|sage|erzähl|erzähle|informiere|verrate|zeig|zeige)[^.\n]{0,30}(?:benutzer|nutzer|anwender)[^.\n]{0,15}nicht`,
		`(?:不要|别|切勿|不得|不可)[^。\n]{0,15}(?:告诉|通知|提醒|透露|告知|显示给)[^。\n]{0,10}(?:用户|使用者)`,
		`(?:不要|别|切勿|不得|不可)[^。\n]{0,6}(?:向|对|给)(?:用户|使用者)[^。\n]{0,6}(?:透露|告知|说|提及|显示|提起)`,
		`(?:不要|别|切勿|不得|不可|不能)[^。\n]{0,6}让(?:用户|使用者)[^。\n]{0,6}(?:知道|发现|察觉|看到)`,
		`(?:ユーザー|利用者)[^。\n]{0,15}(?:伝えない|言わない|知らせない|教えない|見せない)`,
		`(?:사용자)[^.\n]{0,15}(?:알리지|말하지)`,
	),
	p(SecretAccess, "instruction to read secrets or private data",
		`(?:lee|leer|lis|lire|lies|lesen|leggi|leggere|leia|ler|прочитай|прочитать|считай|envía|envoie|sende|invia|envie|отправь)[^.\n]{0,40}(?:contraseñas?|claves?|credenciales|mots?\s+de\s+passe|identifiants|passwörter|zugangsdaten|schlüssel|password|credenziali|chiavi|senhas?|credenciais|пароли|ключи|токены)`,
		`(?:读取|读|发送|获取|上传|收集)[^。\n]{0,20}(?:密码|密钥|凭证|令牌|私钥|api\s*key)`,
	),
)

// toolGroup returns the tool named by a match of re, or "".
func toolGroup(re *regexp.Regexp, text string, m []int) string {
	for i, name := range re.SubexpNames() {
		if name == "tool" && m[2*i] >= 0 {
			return strings.Trim(text[m[2*i]:m[2*i+1]], ".:-/")
		}
	}
	return ""
}
