// Runs the script of the server's page against a live server, in Node with
// a minimal stand-in for the DOM, and prints the table after each step as
// one JSON line. TestPageScript (main_test.go) starts the server and checks
// the lines. Usage: node page.mjs BASE_URL
import vm from "node:vm";

const base = process.argv[2];
const html = await (await fetch(base + "/")).text();
const script = html.match(/<script>([\s\S]*?)<\/script>/)[1];

const elements = {};
const element = (id) => (elements[id] ??= { id, textContent: "", className: "", value: "", listeners: [], addEventListener(_, f) { this.listeners.push(f); } });
for (const [, id] of html.matchAll(/id="([^"]+)"/g)) element(id);
element("label").value = html.match(/id="label"[^>]*value='([^']*)'/)[1];

let serverDown = false;
const windowListeners = {};
const context = vm.createContext({
  document: { getElementById: (id) => elements[id] ?? null, querySelectorAll: () => [] },
  addEventListener: (type, f) => (windowListeners[type] ??= []).push(f),
  fetch: (url) => (serverDown ? Promise.reject(new Error("connection refused")) : fetch(new URL(url, base))),
  encodeURIComponent,
});
vm.runInContext(script, context);
const table = (step) => {
  const row = { step };
  for (const id of ["detected", "to_uri", "to_content_type", "canonical", "round_trip"]) row[id] = [elements[id].textContent, elements[id].className];
  console.log(JSON.stringify(row));
};
// Each listener is the page's update, which returns a promise that settles
// once the table shows the answer, so no step depends on timing.
const type = async (label) => {
  elements.label.value = label;
  await Promise.all(elements.label.listeners.map((f) => f()));
};

// A browser fires pageshow once the page has loaded: the script waits for
// it, so the table shows the label the input has then.
const pageshow = () => Promise.all((windowListeners.pageshow ?? []).map((f) => f({ persisted: false })));
await pageshow();
table("initial");
// On Back (without the back/forward cache), Chromium runs the script with
// the page's own value in the input and then puts back the label typed
// before: after load, before pageshow.
element("label").value = "http://example.com/tag42";
await pageshow();
table("back");
await type("x".repeat(5000));
table("too long");
await type("image/JPEG");
table("valid again");
serverDown = true;
await type("text/html");
table("server down");
