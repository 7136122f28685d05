/** The history panel: `registerHistoryPanel(context, services)` is called once from `activate()`. */
export { registerHistoryPanel, type HistoryPanelController, type HistoryPanelServices, type RevealOptions } from './historyPanel';
export type { PanelLog } from './eventLogSource';
export { PANEL_VIEW_TYPE } from '../../shared/panelProtocol';
