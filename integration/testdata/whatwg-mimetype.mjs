// Parses Content-Types with the WHATWG MIME Sniffing Standard's parser
// (Node's util.MIMEType implements it; fetch() and Blob in a browser
// parse a Content-Type so) for TestWHATWGMIMEType (mimetype_whatwg_test.go).
// Reads a JSON array of strings on standard input, each a field value as
// a browser holds it (one code point, U+0000-U+00FF, per octet), and
// prints a JSON array of the same length: {"ok":true,"essence":...,
// "params":[[name,value],...],"serialized":...} where new MIMEType(value)
// accepts it, {"ok":false,"error":...} where it throws.
import { MIMEType } from "node:util";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const results = JSON.parse(input).map((value) => {
  try {
    const mt = new MIMEType(value);
    return { ok: true, essence: mt.essence, params: [...mt.params], serialized: String(mt) };
  } catch (e) {
    return { ok: false, error: String(e?.message ?? e) };
  }
});
process.stdout.write(JSON.stringify(results) + "\n");
