// A stdio relay on @thinkwell/conductor: a conductor chain with no proxies
// in front of an agent command it spawns, serving ACP on this process's
// own stdin and stdout (docs/interop.md).
//
//   node host.mjs AGENT_COMMAND_LINE   (one argument: what {agent} gives)
//   node host.mjs AGENT ARGS...        (an argv, for trying it by hand)
//
// It exits 0 when the conductor shuts down, which it does when either side
// goes away; 2 for bad arguments. Frames that are not JSON are logged to
// stderr and dropped, as the conductor does with its own subprocesses.
import { createInterface } from "node:readline";
import { Conductor, fromCommands } from "@thinkwell/conductor";

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: node host.mjs AGENT_COMMAND_LINE | AGENT ARGS...");
  process.exit(2);
}
// One argument is a command line, split by the conductor's own parser,
// which knows quotes but no backslashes: enough for {agent}, which quotes
// a path only when it holds a space or the like, with '...'.
const agent = args.length === 1 ? args[0] : { command: args[0], args: args.slice(1) };

// ownStdio is the conductor's connection to its client: this process's
// stdio, newline-delimited JSON-RPC.
const ownStdio = {
  async connect() {
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    return {
      send(message) {
        process.stdout.write(JSON.stringify(message) + "\n");
      },
      messages: {
        async *[Symbol.asyncIterator]() {
          for await (const line of lines) {
            if (!line.trim()) continue;
            try {
              yield JSON.parse(line);
            } catch (err) {
              console.error(`host: dropped a frame that is not JSON: ${err.message}`);
            }
          }
        },
      },
      async close() {
        lines.close();
      },
    };
  },
};

// The MCP bridge, which would listen on a port for MCP-over-ACP servers,
// is off: the chain relays ACP only.
const conductor = new Conductor({ instantiator: fromCommands([agent]), mcpBridgeMode: "disabled" });
await conductor.connect(ownStdio);
process.exit(0);
