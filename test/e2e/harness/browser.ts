// Debian's Chromium driven by playwright-core (no browser download). The flags keep it
// off the network: this machine has none, and Chromium's background fetches fail noisily.
import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from './paths';

export const chromiumArgs = [
  '--headless',
  '--no-sandbox', // we run as root in CI
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage', // small /dev/shm in containers crashes tabs
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}
