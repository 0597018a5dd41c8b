'use strict';
// Starts the patched telegram-test-api on a loopback port for the end-to-end tests.
//   node server.js [--port N] [--host H] [--bot-username NAME] [--bot-id N]
//                  [--latency-ms N] [--limits]
// Port 0 (the default) takes a free port. --latency-ms adds a round trip of N ms to every Bot
// API request (half before it is handled, half before its answer); --limits turns Telegram's
// rate limits on for every token (README.md says which). The first line printed is JSON:
// {"url": "http://127.0.0.1:PORT"}. The server exits when its stdin closes, so
// it never outlives the test run that started it.
const http = require('http');
const TelegramServer = require('telegram-test-api');

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
};

const host = option('host', '127.0.0.1');
const telegram = new TelegramServer({
  host,
  botUsername: option('bot-username', 'GuandanTestBot'),
  botId: Number(option('bot-id', '666')),
  botFirstName: 'Guandan Test',
  latencyMs: Number(option('latency-ms', '0')),
  limits: process.argv.includes('--limits'),
});
const httpServer = http.createServer(telegram.webServer);
httpServer.listen(Number(option('port', '0')), host, () => {
  const { port } = httpServer.address();
  process.stdout.write(`${JSON.stringify({ url: `http://${host}:${port}` })}\n`);
});

process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
