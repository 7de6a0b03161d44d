// Parses URI labels with the WHATWG URL Standard's parser (Node's global
// URL, as a browser's) for TestWHATWGURLParser (uri_whatwg_test.go).
// Reads a JSON array of strings on standard input and prints a JSON array
// of the same length: {"ok":true,"href":...} where new URL(label)
// accepts the label, {"ok":false,"error":...} where it throws.
let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const results = JSON.parse(input).map((label) => {
  try {
    return { ok: true, href: new URL(label).href };
  } catch (e) {
    return { ok: false, error: String(e?.message ?? e) };
  }
});
process.stdout.write(JSON.stringify(results) + "\n");
