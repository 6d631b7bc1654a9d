// One seed for every fast-check property in the unit project, so `npm test` (and CI) checks the
// same cases on every run: a property that fails once fails again, and a red CI is never luck.
// Explore new cases with FC_SEED=random (or any integer); a failure prints its seed and path, and
// FC_SEED=<that seed> replays it. The fuzz suites have their own FUZZ_SEED (docs/fuzz.md).
import fc from 'fast-check';

const asked = process.env.FC_SEED;
const seed =
  asked === 'random' ? (Date.now() ^ (Math.random() * 2 ** 31)) | 0 : asked ? Number(asked) : 20261201;
if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got ${asked}`);
if (asked) console.log(`fast-check seed ${seed} (FC_SEED=${asked})`);
fc.configureGlobal({ seed });
