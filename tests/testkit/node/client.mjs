// Drives an MCP stdio server with an official TypeScript client and prints what it saw.
//
// Reads one JSON plan on stdin: {sdk: "v1" | "v2", mode: "legacy" | "auto" | "<revision>",
// command, args, env, steps}. v1 is @modelcontextprotocol/sdk (the 2025 handshake only); v2 is
// @modelcontextprotocol/client, which `mode` sets to the handshake ("legacy"), to probing with
// server/discover ("auto"), or to a pinned revision. Prints one JSON line for the connection, then
// one per step, each as the client returned it (an exception as {error: {message, code}}):
//   {list: true}                             -> {tools}
//   {call, arguments, progress?}             -> {result, progress: [notifications]}
//   {call, arguments, cancel_on_progress}    -> {cancelled, progress, error}: the call aborted by the
//                                               client at its first progress notification
//   {ping: true}                             -> {ping: "ok"}
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const plan = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const say = (record) => process.stdout.write(JSON.stringify(record) + "\n");
const failure = (e) => ({ error: { message: String(e?.message ?? e), code: e?.code ?? null } });

const v2 = plan.sdk === "v2";
const params = { command: plan.command, args: plan.args, env: plan.env, stderr: "inherit" };
const transport = v2 ? new StdioV2(params) : new StdioV1(params);
const info = { name: "ferrule-tests", version: "1.0" };
const options = v2 && plan.mode !== "legacy"
  ? { versionNegotiation: { mode: plan.mode === "auto" ? "auto" : { pin: plan.mode } } }
  : {};
const client = v2 ? new ClientV2(info, options) : new ClientV1(info, options);

// v1 takes a result schema before the options; v2 takes the options alone
const callTool = (request, options) => (v2 ? client.callTool(request, options) : client.callTool(request, undefined, options));

await client.connect(transport);
say({
  server: client.getServerVersion() ?? null,
  instructions: client.getInstructions() ?? null,
  version: v2 ? client.getNegotiatedProtocolVersion() ?? null : null,
  era: v2 ? client.getProtocolEra() ?? null : null,
});

for (const step of plan.steps) {
  try {
    if (step.list) {
      say({ tools: (await client.listTools()).tools });
    } else if (step.ping) {
      await client.ping();
      say({ ping: "ok" });
    } else if (step.cancel_on_progress) {
      const controller = new AbortController();
      const progress = [];
      const onprogress = (note) => {
        progress.push(note);
        controller.abort("enough");
      };
      try {
        await callTool({ name: step.call, arguments: step.arguments ?? {} }, { signal: controller.signal, onprogress });
        say({ cancelled: false, progress });
      } catch (e) {
        say({ cancelled: controller.signal.aborted, progress, ...failure(e) });
      }
    } else {
      const progress = [];
      const onprogress = step.progress ? (note) => progress.push(note) : undefined;
      const result = await callTool({ name: step.call, arguments: step.arguments ?? {} }, { onprogress, timeout: 300000 });
      say({ result, progress });
    }
  } catch (e) {
    say(failure(e));
  }
}
await client.close();
