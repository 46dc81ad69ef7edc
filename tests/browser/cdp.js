// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe:
// chromium reads NUL-terminated JSON messages on fd 3 and writes them on
// fd 4. No npm package and no network socket: node's standard library only.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

class Browser {
  constructor(executable, extraArgs = []) {
    this.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cachewise-chromium-'));
    const args = [
      '--headless', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu',
      '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-extensions',
      '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio',
      `--user-data-dir=${this.profile}`, ...extraArgs, 'about:blank',
    ];
    this.child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.child.stderr.on('data', (d) => { this.stderr += d.toString(); });
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    let buffer = Buffer.alloc(0);
    this.child.stdio[4].on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      let end;
      while ((end = buffer.indexOf(0)) >= 0) {
        const message = JSON.parse(buffer.subarray(0, end).toString('utf8'));
        buffer = buffer.subarray(end + 1);
        this.dispatch(message);
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  dispatch(message) {
    if (message.id !== undefined && this.pending.has(message.id)) {
      const { resolve, reject, method } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) {
        reject(new Error(`${method}: ${message.error.message}`));
      } else {
        resolve(message.result);
      }
      return;
    }
    for (const listener of this.listeners) {
      listener(message);
    }
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) {
      message.sessionId = sessionId;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(message) + '\0');
    });
  }

  on(listener) {
    this.listeners.push(listener);
  }

  // Resolves with the first event of `method` in `sessionId`.
  waitFor(method, sessionId, timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)),
        timeoutMs);
      this.on((m) => {
        if (m.method === method && m.sessionId === sessionId) {
          clearTimeout(timer);
          resolve(m.params);
        }
      });
    });
  }

  async close() {
    try {
      await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]);
    } catch (e) {
      // already gone
    }
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(killer);
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

module.exports = { Browser };
