import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild({
  index: 'src/index.ts',
  driver: 'src/driver-entry.ts',
  testing: 'src/testing-entry.ts',
});
