"""Our own attack table for the sandbox: escapes, resource exhaustion and bad results.

Each entry: id, language, the code of an `evaluate(output, expected)` helper that the test wraps
in `exec_evaluation`, and the expected status — `error` (error or refused), `refused`,
`timeout`, `memory` (either resource status), or `contained` (runs, but its effect stays in its
own turn). The shared corpus beside the repository runs in addition when it is present.
"""

OWN_ATTACKS = [
    {
        "id": "own-format-map-walk",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': '{0.__class__}'.format_map({'0': output})}\n",
    },
    {
        "id": "own-fstring-dunder",
        "language": "python",
        "expected": "refused",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': f'{output.__class__.__mro__}'}\n",
    },
    {
        "id": "own-generator-frame-getattr",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    g = (x for x in [1])\n"
        "    return {'score': 0.0, 'reason': str(getattr(g, 'gi_frame'))}\n",
    },
    {
        "id": "own-statistics-sys-walk",
        "language": "python",
        "expected": "error",
        "code": "import statistics\n"
        "def evaluate(output, expected):\n"
        "    os = statistics.sys.modules['os']\n"
        "    return {'score': 0.0, 'reason': os.popen('id').read()}\n",
    },
    {
        "id": "own-json-decoder-walk",
        "language": "python",
        "expected": "error",
        "code": "import json\n"
        "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(json.decoder.re)}\n",
    },
    {
        "id": "own-string-formatter",
        "language": "python",
        "expected": "refused",
        "code": "from string import Formatter\n"
        "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': Formatter().format('{0.__class__}', output)}\n",
    },
    {
        "id": "own-module-poison",
        "language": "python",
        "expected": "error",
        "code": "import json\n"
        "def evaluate(output, expected):\n"
        "    json.dumps = lambda *a, **k: 'poisoned'\n"
        "    return {'score': 1.0, 'reason': json.dumps(1)}\n",
    },
    {
        "id": "own-score-1.5",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': 1.5, 'reason': 'high'}\n",
    },
    {
        "id": "own-bool-score-in-dict",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': True, 'reason': 'bool'}\n",
    },
    {
        "id": "own-reason-not-string",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': 0.5, 'reason': 42}\n",
    },
    {
        "id": "own-huge-result",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 1.0, 'reason': 'x' * (300 * 1024), 'extra': [1] * 10**6}\n",
    },
    {
        "id": "own-read-environ",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': open('/proc/self/environ').read()}\n",
    },
    {
        "id": "own-fork-via-exception-globals",
        "language": "python",
        "expected": "refused",
        "code": "def evaluate(output, expected):\n"
        "    try:\n        1 / 0\n"
        "    except Exception as e:\n"
        "        return {'score': 0.0, 'reason': str(e.__traceback__.tb_frame.f_globals)}\n",
    },
    {
        "id": "own-catch-timeout",
        "language": "python",
        "expected": "timeout",
        "code": "def evaluate(output, expected):\n"
        "    while True:\n"
        "        try:\n"
        "            while True:\n                pass\n"
        "        except:\n            pass\n",
    },
    {
        "id": "own-deep-source",
        "language": "python",
        "expected": "refused",
        "code": "X = " + "+".join(["1"] * 5000) + "\n"
        "def evaluate(output, expected):\n    return 1.0\n",
    },
    {
        "id": "own-js-prototype-pollution",
        "language": "javascript",
        "expected": "contained",
        "code": "function evaluate(output, expected) {\n"
        "  const polluted = String.prototype.includes.length === 0;\n"
        "  String.prototype.includes = function () { return true; };\n"
        "  globalThis.seen = (globalThis.seen || 0) + 1;\n"
        "  return {score: polluted ? 1 : 0, reason: 'seen ' + globalThis.seen};\n"
        "}\n",
    },
    {
        "id": "own-js-microtask-loop",
        "language": "javascript",
        "expected": "timeout",
        "code": "function evaluate(output, expected) {\n"
        "  return Promise.resolve().then(() => { while (true) {} });\n"
        "}\n",
    },
    {
        "id": "own-js-job-chain",
        "language": "javascript",
        "expected": "timeout",
        "code": "function evaluate(output, expected) {\n"
        "  function again() { return Promise.resolve().then(again); }\n"
        "  return again();\n"
        "}\n",
    },
    {
        "id": "own-js-unsettled-promise",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) { return new Promise(() => {}); }\n",
    },
    {
        "id": "own-js-stdout-spoof",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        '  console.log(\'__COZE_RETURN_VAL_START__{"score": 1, "reason": "spoof"}\');\n'
        "  throw new Error('real failure');\n"
        "}\n",
    },
    {
        "id": "own-js-infinity-score",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) { return {score: Infinity, reason: 'x'}; }\n",
    },
    {
        "id": "own-js-function-constructor",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        "  const g = Function('return this')();\n"
        "  return {score: 0, reason: String(g.process.env.HOME)};\n"
        "}\n",
    },
    # --- imports outside the allow-list, files, network, processes
    {
        "id": "own-import-posix",
        "language": "python",
        "expected": "error",
        "code": "import posix\n"
        "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': posix.getcwd()}\n",
    },
    {
        "id": "own-import-ctypes-late",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    import ctypes\n"
        "    return {'score': 0.0, 'reason': str(ctypes.CDLL(None))}\n",
    },
    {
        "id": "own-from-os-import",
        "language": "python",
        "expected": "error",
        "code": "from os import system\n"
        "def evaluate(output, expected):\n"
        "    return {'score': float(system('id')), 'reason': ''}\n",
    },
    {
        "id": "own-socket-connect",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    import socket\n"
        "    socket.create_connection(('93.184.216.34', 80), timeout=1)\n"
        "    return {'score': 1.0, 'reason': 'reached the network'}\n",
    },
    {
        "id": "own-urllib-metadata",
        "language": "python",
        "expected": "error",
        "code": "import urllib.request\n"
        "def evaluate(output, expected):\n"
        "    body = urllib.request.urlopen('http://169.254.169.254/latest/meta-data/').read()\n"
        "    return {'score': 0.0, 'reason': body.decode()}\n",
    },
    {
        "id": "own-open-hostname",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    with open('/etc/hostname') as f:\n"
        "        return {'score': 0.0, 'reason': f.read()}\n",
    },
    {
        "id": "own-write-tmp",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    open('/tmp/assay-owned', 'w').write('x')\n    return 1.0\n",
    },
    {
        "id": "own-fork",
        "language": "python",
        "expected": "error",
        "code": "import os\ndef evaluate(output, expected):\n    os.fork()\n    return 1.0\n",
    },
    # --- names and attributes that lead out of the restricted world
    {
        "id": "own-dunder-import-call",
        "language": "python",
        "expected": "refused",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(__import__('os').environ)}\n",
    },
    {
        "id": "own-builtins-lookup",
        "language": "python",
        "expected": "refused",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(__builtins__['open'])}\n",
    },
    {
        "id": "own-eval-call",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': eval('1.0'), 'reason': ''}\n",
    },
    {
        "id": "own-exec-call",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    exec('x = 1')\n    return 1.0\n",
    },
    {
        "id": "own-compile-call",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(compile('1', 'x', 'eval'))}\n",
    },
    {
        "id": "own-subclasses-walk",
        "language": "python",
        "expected": "refused",
        "code": "def evaluate(output, expected):\n"
        "    found = ().__class__.__bases__[0].__subclasses__()\n"
        "    return {'score': 0.0, 'reason': str(found)}\n",
    },
    {
        "id": "own-getattr-class",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(getattr(output, '__class__'))}\n",
    },
    {
        "id": "own-format-mro",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': '{0.__class__.__mro__}'.format(output)}\n",
    },
    {
        "id": "own-coroutine-frame",
        "language": "python",
        "expected": "error",
        "code": "async def probe():\n    return 1\n"
        "def evaluate(output, expected):\n"
        "    return {'score': 0.0, 'reason': str(probe().cr_frame.f_globals)}\n",
    },
    {
        "id": "own-metaclass",
        "language": "python",
        "expected": "error",
        "code": "class Meta(type):\n    pass\n"
        "class Probe(metaclass=Meta):\n    pass\n"
        "def evaluate(output, expected):\n    return {'score': 0.0, 'reason': str(Probe)}\n",
    },
    {
        "id": "own-except-star",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    try:\n        raise ValueError('x')\n"
        "    except* ValueError as group:\n"
        "        return {'score': 0.0, 'reason': str(group.exceptions)}\n",
    },
    # --- resources
    {
        "id": "own-busy-loop",
        "language": "python",
        "expected": "timeout",
        "code": "def evaluate(output, expected):\n    n = 0\n    while True:\n        n += 1\n",
    },
    {
        "id": "own-huge-list",
        "language": "python",
        "expected": "memory",
        "code": "def evaluate(output, expected):\n    block = [0] * (10 ** 10)\n    return 1.0\n",
    },
    {
        "id": "own-huge-string",
        "language": "python",
        "expected": "memory",
        "code": "def evaluate(output, expected):\n    s = 'x' * (2 ** 34)\n    return 1.0\n",
    },
    {
        "id": "own-deep-recursion",
        "language": "python",
        "expected": "error",
        "code": "def down(n):\n    return down(n + 1)\n"
        "def evaluate(output, expected):\n    return down(0)\n",
    },
    {
        "id": "own-print-flood",
        "language": "python",
        "expected": "contained",
        "code": "def evaluate(output, expected):\n"
        "    for i in range(200000):\n        print('flooding the host with output', i)\n"
        "    return {'score': 1.0, 'reason': 'printed'}\n",
    },
    {
        "id": "own-cross-turn-global",
        "language": "python",
        "expected": "contained",
        "code": "SEEN = []\n"
        "def evaluate(output, expected):\n"
        "    SEEN.append(1)\n"
        "    return {'score': 0.1 * len(SEEN), 'reason': 'call %d' % len(SEEN)}\n",
    },
    # --- results that must be rejected, never repaired
    {
        "id": "own-nan-score",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': float('nan'), 'reason': ''}\n",
    },
    {
        "id": "own-inf-score",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n"
        "    return {'score': float('inf'), 'reason': ''}\n",
    },
    {
        "id": "own-negative-score",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': -0.5, 'reason': ''}\n",
    },
    {
        "id": "own-score-string",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': '0.5', 'reason': ''}\n",
    },
    {
        "id": "own-unserialisable",
        "language": "python",
        "expected": "error",
        "code": "def evaluate(output, expected):\n    return {'score': 0.5, 'reason': {1, 2}}\n",
    },
    # --- JavaScript
    {
        "id": "own-js-require",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        "  return {score: 0, reason: String(require('child_process').execSync('id'))};\n}\n",
    },
    {
        "id": "own-js-process-env",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        "  return {score: 0, reason: JSON.stringify(process.env)};\n}\n",
    },
    {
        "id": "own-js-dynamic-import",
        "language": "javascript",
        "expected": "error",
        "code": "async function evaluate(output, expected) {\n"
        "  const os = await import('os');\n  return {score: 0, reason: String(os)};\n}\n",
    },
    {
        "id": "own-js-deno",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        "  return {score: 0, reason: Deno.readTextFileSync('/etc/hostname')};\n}\n",
    },
    {
        "id": "own-js-fetch",
        "language": "javascript",
        "expected": "error",
        "code": "async function evaluate(output, expected) {\n"
        "  const r = await fetch('http://169.254.169.254/');\n"
        "  return {score: 0, reason: await r.text()};\n}\n",
    },
    {
        "id": "own-js-busy-loop",
        "language": "javascript",
        "expected": "timeout",
        "code": "function evaluate(output, expected) {\n  let n = 0;\n  for (;;) { n++; }\n}\n",
    },
    {
        "id": "own-js-huge-array",
        "language": "javascript",
        "expected": "memory",
        "code": "function evaluate(output, expected) {\n"
        "  const a = [];\n  for (;;) { a.push(new Array(1e6).fill(7)); }\n}\n",
    },
    {
        "id": "own-js-string-doubling",
        "language": "javascript",
        "expected": "memory",
        "code": "function evaluate(output, expected) {\n"
        "  let s = 'x';\n  for (;;) { s = s + s; }\n}\n",
    },
    {
        "id": "own-js-recursion",
        "language": "javascript",
        "expected": "error",
        "code": "function down(n) { return down(n + 1); }\n"
        "function evaluate(output, expected) { return down(0); }\n",
    },
    {
        "id": "own-js-nan-score",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) { return {score: NaN, reason: 'x'}; }\n",
    },
    {
        "id": "own-js-wasm",
        "language": "javascript",
        "expected": "error",
        "code": "function evaluate(output, expected) {\n"
        "  const m = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));\n"
        "  return {score: 0, reason: String(m)};\n}\n",
    },
]
