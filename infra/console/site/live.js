// Following a voting task as it changes: over the live stream (a WebSocket, voting §3.5) when
// the task streams live, else by polling its bundle. Either way `onUpdate(bundle)` gets the full
// task bundle; `pause()` stops the updates until `resume()`.

import { getConfig, voting } from './api.js';
import { getToken } from './auth.js';

/** The live stream's URL: config.json's, else the page's origin's `/live-stream`, with the token. */
export function liveStreamUrl(config = getConfig(), location = globalThis.location, token = getToken()) {
  let url = config.live_stream_url;
  if (!url) {
    const base = config.api_base_url ? new URL(config.api_base_url) : location;
    url = `${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}/live-stream`;
  }
  // A browser cannot set a WebSocket's headers: the local server takes the token as a query parameter.
  if (token) url += `${url.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(token)}`;
  return url;
}

export class TaskFollower {
  /**
   * @param {string} taskId
   * @param {{live: boolean, onUpdate: Function, onState: Function, pollMs?: number}} options
   */
  constructor(taskId, { live, onUpdate, onState, pollMs = 2000 }) {
    Object.assign(this, { taskId, live, onUpdate, onState, pollMs });
    this.paused = false;
    this.stopped = false;
    this.mode = live ? 'live' : 'polling';
  }

  start() {
    if (this.live) this.connect();
    else this.poll();
    return this;
  }

  state(text) {
    this.onState?.({ mode: this.mode, paused: this.paused, text });
  }

  connect() {
    let socket;
    try {
      socket = new WebSocket(liveStreamUrl());
    } catch (e) {
      this.fallBack(`live stream unavailable (${e.message})`);
      return;
    }
    this.socket = socket;
    let heard = false;
    socket.onopen = () => {
      socket.send(JSON.stringify({ social_task_id: this.taskId, refresh_interval: 5 }));
      this.state('live stream connected');
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === 'update' && message.data) {
        heard = true;
        if (!this.paused) this.onUpdate(message.data);
      } else if (message.error) {
        this.fallBack(`live stream refused: ${message.error}`);
      }
    };
    socket.onclose = () => {
      if (this.stopped || this.mode !== 'live') return;
      if (this.complete) return this.state('live stream ended (task complete)');
      // Lost: poll instead (a token refused at the upgrade lands here too, unheard).
      this.fallBack(heard ? 'live stream closed; polling' : 'live stream could not connect; polling');
    };
  }

  fallBack(reason) {
    this.mode = 'polling';
    try {
      this.socket?.close();
    } catch {
      /* closed already */
    }
    this.state(reason);
    this.poll();
  }

  async poll() {
    if (this.stopped || this.mode !== 'polling') return;
    if (!this.paused) {
      try {
        const bundle = await voting.bundle(this.taskId);
        this.onUpdate(bundle);
        this.state(`polled every ${this.pollMs / 1000} s`);
      } catch (e) {
        this.state(`poll failed: ${e.message}`);
      }
    }
    if (!this.complete) this.timer = setTimeout(() => this.poll(), this.pollMs);
  }

  /** The task is complete: no more updates are coming after this one. */
  finished() {
    this.complete = true;
  }

  pause() {
    this.paused = true;
    this.state('paused');
  }

  resume() {
    this.paused = false;
    this.state('resumed');
    if (this.mode === 'polling' && !this.complete) {
      clearTimeout(this.timer);
      this.poll();
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    try {
      this.socket?.close();
    } catch {
      /* closed already */
    }
  }
}
