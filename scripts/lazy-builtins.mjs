// esbuild plugins for scripts/build.mjs: builtins that bundled libraries require at load but
// callctl never uses are loaded on first use instead (BENCHMARKS.md §4, start-up).
/**
 * commander requires node:child_process at load, for executable subcommands (callctl has none):
 * that builtin (with dgram and the rest it pulls) cost ~2 ms of every start. Here commander gets
 * it on first use instead.
 */
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (a) => (/[/\\]node_modules[/\\]commander[/\\]/.test(a.importer) ? { path: 'child_process', namespace: 'lazy-child-process' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

/**
 * undici requires node:http2 at load for HTTP/2, which callctl never asks for (undici's default is
 * HTTP/1.1): that builtin brings tls and crypto, 12–30 ms of a command's start. undici reads only
 * protocol constants (RFC 9113, the values node:http2 has) at load; the rest is loaded on first use.
 * test/dist/lazy-builtins.test.ts checks these constants against node:http2.
 */
export const HTTP2_CONSTANTS = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};
export const lazyHttp2 = {
  name: 'lazy-http2',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, (a) => (/[/\\]node_modules[/\\]undici[/\\]/.test(a.importer) ? { path: 'http2', namespace: 'lazy-http2' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-http2' }, () => ({
      contents: `const real = () => require('node:http2');
module.exports = new Proxy({ constants: ${JSON.stringify(HTTP2_CONSTANTS)} }, { get: (t, k) => (k === 'constants' ? t.constants : real()[k]) });`,
      loader: 'js',
    }));
  },
};
