// A random bot in JavaScript (node, standard library only): picks a legal action.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
rl.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "ready", name: "random-js", observation: false });
  } else if (message.type === "request") {
    const legal = message.legal;
    send({ type: "action", action: legal[Math.floor(Math.random() * legal.length)] });
  } else if (message.type === "quit") {
    process.exit(0);
  }
});
