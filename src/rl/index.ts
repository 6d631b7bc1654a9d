/**
 * The RL core's public surface: advantage estimators and their diagnostics, the reference policy
 * loss, loss aggregation, evaluation metrics, group statistics. Pure: no tfjs, no DOM, no Node APIs.
 */
export * from './advantage';
export * from './aggregate';
export * from './diagnostics';
export * from './eval';
export * from './loss';
export * from './stats';
