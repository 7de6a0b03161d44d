// An HTTP peer for http_node_test.go, built on Node's own HTTP stacks
// (http: llhttp, a strict parser; http2: nghttp2), independent of Go's.
//
// It starts a backend on 127.0.0.1 that speaks URI labels only (it
// answers with the label of the request's X-Label field) and prints
// {"backend":PORT} as its first line, so that Go can put a proxy in front
// of it. Then it reads {"ca":PEM,"jobs":[...]} on standard input, runs
// every job as a client (8 at a time), prints a JSON array with one
// result per job, and exits. Header values and bodies are octets: a
// string in either direction holds one octet per character (latin1, as
// Node's HTTP/1.1 code reads and writes header values), and request
// bodies come as base64. Go does all the asserting.
import http from "node:http";
import http2 from "node:http2";
import { createHash } from "node:crypto";
import { EventEmitter, once } from "node:events";

// The backend's streamed responses wait for the client to see each
// chunk (a job with "ack":"local"), so a proxy between that buffers
// instead of flushing stalls the stream and fails its job. Each stream
// has its own count, keyed by its path and query, which the proxy passes
// on: two streams at once must not ack each other's chunks, and two
// chunks that arrive together count twice.
const acked = new Map();
const seen = new EventEmitter();
const ack = (key) => (acked.set(key, (acked.get(key) ?? 0) + 1), seen.emit(key));

const backend = http.createServer(async (req, res) => {
  const hash = createHash("sha256");
  const chunks = [];
  for await (const c of req) {
    hash.update(c);
    chunks.push(c);
  }
  const label = req.headers["content-type"] ?? "";
  res.setHeader("X-Backend-Saw", label);
  res.setHeader("X-Body-SHA256", hash.digest("hex"));
  res.setHeader("X-Backend-Chunked", String(req.headers["transfer-encoding"] === "chunked"));
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(label)) {
    res.writeHead(415, { "Content-Type": 'ContentType:text/plain?charset="utf-8"' });
    return res.end("URI labels only\n");
  }
  res.setHeader("Content-Type", req.headers["x-label"]);
  if (req.url.startsWith("/stream")) {
    for (let i = 0; i < 4; i++) {
      res.write(`data: chunk ${i}\n\n`);
      const timeout = AbortSignal.timeout(5000);
      try {
        while ((acked.get(req.url) ?? 0) <= i) await once(seen, req.url, { signal: timeout });
      } catch {
        return res.destroy(); // the client never saw the chunk
      }
    }
    return res.end();
  }
  res.end(Buffer.concat(chunks));
});
backend.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ backend: backend.address().port }) + "\n");
});

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const { ca, jobs } = JSON.parse(input);

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const sessions = new Map(); // one HTTP/2 connection per origin
const pairs = (headers) =>
  Object.entries(headers).flatMap(([k, v]) => [v].flat().map((x) => [k, String(x)]));
const rawPairs = (raw) => raw.flatMap((x, i) => (i % 2 ? [] : [[x, raw[i + 1]]]));

// run sends one job's request and resolves to what Node parsed of the
// answer: the informational (1xx) responses in order, the final status,
// header fields and trailer fields, and the body's length and SHA-256.
function run(job) {
  return new Promise((resolve) => {
    const result = { info: [], order: [], length: 0 };
    const hash = createHash("sha256");
    const body = [];
    let pending = ""; // the body's text since the last complete event
    const fail = (e) => resolve({ ...result, error: String(e?.code ?? "") + " " + String(e?.message ?? e) });
    const onData = (c) => {
      hash.update(c);
      body.push(c);
      result.length += c.length;
      if (!job.ack) return;
      pending += c.toString("latin1");
      for (let i; (i = pending.indexOf("\n\n")) >= 0; pending = pending.slice(i + 2)) {
        if (job.ack === "local") ack(new URL(job.url).pathname + new URL(job.url).search);
        else http.get(job.ack, { agent: false }, (r) => r.resume()).on("error", fail);
      }
    };
    const onEnd = () => {
      result.sha256 = hash.digest("hex");
      if (result.length <= 1 << 16) result.body = Buffer.concat(body).toString("latin1");
      resolve(result);
    };
    const informational = (status, header) => (result.order.push(status), result.info.push({ status, header }));
    const final = (status, header) => (result.order.push(status), (result.status = status), (result.header = header));
    // One write is a body of known length; more stream it, chunked.
    const body1 = job.body?.length === 1 ? Buffer.from(job.body[0], "base64") : null;
    if (body1) job.header = { ...job.header, "content-length": String(body1.length) };
    let req;
    if (job.proto === "h2") {
      const origin = new URL(job.url).origin;
      if (!sessions.has(origin)) sessions.set(origin, http2.connect(origin, { ca }).on("error", () => {})); // each stream reports it
      const u = new URL(job.url);
      req = sessions.get(origin).request({ ":method": job.method, ":path": u.pathname + u.search, ...job.header });
      req.on("headers", (h) => informational(h[":status"], pairs(h)));
      req.on("response", (h) => final(h[":status"], pairs(h)));
      req.on("trailers", (h) => (result.trailer = pairs(h)));
      req.on("data", onData).on("end", onEnd).on("error", fail);
    } else {
      req = http.request(job.url, { method: job.method, headers: job.header, agent });
      req.on("information", (i) => informational(i.statusCode, rawPairs(i.rawHeaders)));
      req.on("response", (res) => {
        final(res.statusCode, rawPairs(res.rawHeaders));
        res.on("data", onData).on("error", fail);
        res.on("end", () => ((result.trailer = rawPairs(res.rawTrailers)), onEnd()));
      });
      req.on("error", fail);
    }
    for (const b of job.body ?? []) req.write(Buffer.from(b, "base64"));
    req.end();
  });
}

const results = new Array(jobs.length);
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const i = next++;
    results[i] = await run(jobs[i]);
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
process.stdout.write(JSON.stringify(results) + "\n");
for (const s of sessions.values()) s.close();
agent.destroy();
// close() leaves a connection that has not sent a request yet (a client's
// Transport may dial one ahead and keep it idle) open until Node's
// headersTimeout, and with it the process.
backend.close();
backend.closeAllConnections();
