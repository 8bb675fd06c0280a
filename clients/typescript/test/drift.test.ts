/** The client is tied to the generated schema: each change of the API below, made in memory to
 * src/schema.ts, must fail `tsc` on the unchanged client (and the unchanged copy must compile). This is
 * what makes a stale src/schema.ts, once regenerated, break the build instead of the users. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCHEMA = readFileSync(join(ROOT, "src/schema.ts"), "utf8");

function block(s: string, start: string, next: string): [number, number] {
  const a = s.indexOf(start);
  const b = s.indexOf(next, a + start.length);
  assert.ok(a >= 0 && b > a, `no ${start} in src/schema.ts`);
  return [a, b];
}

const MUTANTS: [string, (s: string) => string, RegExp][] = [
  ["a route removed (GET /contacts/{contact_id}/triggers)", (s) => {
    const [a, b] = block(s, '    "/contacts/{contact_id}/triggers": {', '\n    "/');
    return s.slice(0, a) + s.slice(b + 1);
  }, /triggers/],
  ["a query parameter renamed (/context's as_of -> asOf)", (s) => {
    const [a, b] = block(s, "get_context_context__contact_id__get: {", "requestBody");
    return s.slice(0, a) + s.slice(a, b).replace("as_of?:", "asOf?:") + s.slice(b);
  }, /as_of/],
  ["a path parameter renamed (webhook_id -> id)", (s) => {
    const [a, b] = block(s, "get_webhook_webhooks__webhook_id__get: {", "requestBody");
    return s.slice(0, a) + s.slice(a, b).replace("webhook_id: string;", "id: string;") + s.slice(b);
  }, /webhook_id/],
  ["an answer's field renamed (IngestAccepted.eventIds -> event_ids)", (s) => {
    const [a, b] = block(s, "IngestAccepted: {", "};");
    return s.slice(0, a) + s.slice(a, b).replace("eventIds: string[];", "event_ids: string[];") + s.slice(b);
  }, /eventIds|event_ids/],
  ["a route added that the client has no method for (GET /contacts/{contact_id}/sessions)", (s) => s.replace(
    "export interface paths {",
    'export interface paths {\n    "/contacts/{contact_id}/sessions": { parameters: { query?: never; header?: never; path?: never; ' +
    'cookie?: never }; get: operations["healthz_healthz_get"]; put?: never; post?: never; delete?: never; options?: never; ' +
    "head?: never; patch?: never; trace?: never };"), /sessions/],
];

const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), { noEmit: true }, {
  ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)),
})!;
const schemaPath = join(ROOT, "src/schema.ts");
let previous: ts.Program | undefined;

/** tsc's verdict on the client with `schema` in place of src/schema.ts (in memory; the files are not touched). */
function compiles(schema: string): [boolean, string] {
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === schemaPath ? schema : readFile(f));
  host.getSourceFile = (f, lang, onError, create) =>
    f === schemaPath ? ts.createSourceFile(f, schema, lang) : getSourceFile(f, lang, onError, create);
  const program = ts.createProgram(config.fileNames, config.options, host, previous);
  previous = program;
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return [diagnostics.length === 0, ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" })];
}

test("the committed schema compiles with the client", async () => {
  const [ok, out] = compiles(SCHEMA);
  assert.ok(ok, out);
});

for (const [what, mutate, mention] of MUTANTS) {
  test(`${what}: the client no longer compiles`, async () => {
    const changed = mutate(SCHEMA);
    assert.notEqual(changed, SCHEMA);
    const [ok, out] = compiles(changed);
    assert.ok(!ok, "tsc accepted the client against the changed schema");
    assert.match(out, /error TS\d+/);
    assert.match(out, mention);
  });
}
