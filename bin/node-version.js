// Plain JavaScript that every Node.js since 12 parses: it runs before anything that needs a newer Node.

/** The oldest Node.js op-gen runs on (package.json "engines"). */
export const MINIMUM_NODE = '22.19.0';

/** True when `version` ("20.20.2", "v24.1.0") is at least MINIMUM_NODE. */
export function isSupportedNode(version) {
  const actual = version.replace(/^v/, '').split('.').map(Number);
  const wanted = MINIMUM_NODE.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((actual[i] || 0) !== wanted[i]) return (actual[i] || 0) > wanted[i];
  }
  return true;
}

/** The one line printed on an unsupported Node, with a command that gets Node 24 from the npm registry. */
export function unsupportedNodeMessage(version, args) {
  const simple = args.every(function (a) {
    return /^[\w./:=@,+-]+$/.test(a);
  });
  const command = 'op-gen' + (args.length === 0 ? '' : ' ' + (simple ? args.join(' ') : '...'));
  return (
    'op-gen: Node.js ' +
    version.replace(/^v/, '') +
    ' is not supported: op-gen needs Node.js >= ' +
    MINIMUM_NODE +
    ". Run it with Node 24 from the npm registry: npx -y -p node@24 -c '" +
    command +
    "' (or install Node 24 LTS)"
  );
}
