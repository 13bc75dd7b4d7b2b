/** The id of the tasks extension (SEP-2663), advertised under `capabilities.extensions` and opted in per request. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** 2025-11-25: the `_meta` key that ties a message to a task. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** Whether a tool can run as a task: never, when the client allows it, or only as a task. */
export type TaskSupport = 'none' | 'optional' | 'required';
