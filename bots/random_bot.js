// A random bot in JavaScript (node, standard library only): picks a legal action.
// Seeded from ARENA_BOT_SEED (a small PRNG, mulberry32), so a seeded match replays.
const readline = require("readline");

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const given = Number.parseInt(process.env.ARENA_BOT_SEED || "", 10);
const random = Number.isNaN(given) ? Math.random : mulberry32(given % 4294967296);
const rl = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
rl.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "ready", name: "random-js", observation: false });
  } else if (message.type === "request") {
    const legal = message.legal;
    send({ type: "action", action: legal[Math.floor(random() * legal.length)] });
  } else if (message.type === "quit") {
    process.exit(0);
  }
});
