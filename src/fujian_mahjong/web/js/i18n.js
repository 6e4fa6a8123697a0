// One zh/en message table for the client (STYLE.md). The language defaults to the
// browser's and is remembered in localStorage.

const M = {
  title: ["福建金麻将", "Fujian Gold Mahjong"],
  lang_switch: ["English", "中文"],
  lobby: ["大厅", "Lobby"],
  your_name: ["昵称", "Your name"],
  play_as_guest: ["以游客进入", "Enter as guest"],
  signed_in_as: ["当前玩家: {name}", "Playing as {name}"],
  change_name: ["换名字", "Change name"],
  login: ["登录", "Log in"],
  register: ["注册", "Register"],
  password: ["密码", "Password"],
  account: ["账号", "Account"],
  accounts_hint: ["注册账号以保存银子与等级", "Register to keep your silver and level"],
  guest: ["游客", "guest"],
  logout: ["退出登录", "Log out"],
  silver: ["银子 {n}", "Silver {n}"],
  level: ["{n}级 {title}·{rank}", "Level {n} {title}·{rank}"],
  rating: ["积分 {n}", "rating {n}"],
  tables: ["牌桌列表", "Open tables"],
  no_tables: ["暂无公开牌桌", "No open tables yet"],
  refresh: ["刷新", "Refresh"],
  create_table: ["创建牌桌", "Create a table"],
  profile: ["玩法", "Rules"],
  players: ["人数", "Players"],
  bots: ["机器人", "Bots"],
  turn_seconds: ["每步秒数", "Seconds per turn"],
  hands: ["盘数", "Hands"],
  private: ["私密(凭房号加入)", "Private (join by code)"],
  create: ["创建", "Create"],
  join_by_code: ["房号加入", "Join by code"],
  code: ["房号", "Code"],
  join: ["加入", "Join"],
  spectate: ["观战", "Watch"],
  seats_taken: ["{n}/{m} 人", "{n}/{m} seated"],
  history: ["我的牌局", "My hands"],
  replay: ["回放", "Replay"],
  "profile.fuzhou-tcy": ["福州麻将·同城游", "Fuzhou (TCY)"],
  "profile.fuzhou-bianfeng": ["福州麻将·边锋", "Fuzhou (Bianfeng)"],
  "profile.fuzhou-doudou": ["福州麻将·斗斗", "Fuzhou (Doudou)"],
  "profile.sanming": ["三明麻将", "Sanming"],
  // table
  table_no: ["牌桌 {id}", "Table {id}"],
  hand_no: ["第 {n}/{m} 盘", "Hand {n}/{m}"],
  waiting_room: ["等待开局", "Waiting for players"],
  ready: ["准备", "Ready"],
  is_ready: ["已准备", "ready"],
  not_ready: ["未准备", "not ready"],
  next_hand: ["准备下一盘", "Ready for the next hand"],
  add_bot: ["加机器人", "Add a bot"],
  remove_bot: ["移除机器人", "Remove a bot"],
  leave: ["离开", "Leave"],
  hand_void: ["{seat}号位离开, 本盘作废", "Seat {seat} left: the hand is void"],
  table_closed: ["牌桌已关闭", "The table is closed"],
  empty_seat: ["空位", "empty seat"],
  invite: ["邀请链接", "Invite link"],
  me: ["我", "Me"],
  rel_prev: ["上家", "Left (prev)"],
  rel_across: ["对家", "Across"],
  rel_next: ["下家", "Right (next)"],
  dealer: ["庄", "Dealer"],
  streak: ["连庄 {n}", "streak {n}"],
  bot: ["机器人", "bot"],
  offline: ["断线", "offline"],
  auto_badge: ["托管", "auto"],
  flowers: ["花 {n}", "Flowers {n}"],
  concealed: ["手牌 {n}", "{n} in hand"],
  gold: ["金", "Gold"],
  indicator: ["翻金", "Indicator"],
  live: ["余牌 {n}", "Wall {n}"],
  reserve: ["留牌 {n}", "Reserve {n}"],
  dice: ["骰子 {a}+{b}", "Dice {a}+{b}"],
  last_discard: ["{name} 打出", "{name} discarded"],
  your_turn: ["轮到你出牌", "Your turn"],
  turn_of: ["轮到 {name}", "{name} to play"],
  claim_prompt: ["{name} 打出 {tile}", "{name} discarded {tile}"],
  waiting_claims: ["等待其他玩家…", "Waiting for the others…"],
  seconds: ["{n} 秒", "{n}s"],
  reconnecting: ["连接中断，正在重连…", "Reconnecting…"],
  spectating: ["观战中", "Spectating"],
  tenpai: ["听牌", "Ready (听牌)"],
  waits: ["听: ", "Waits: "],
  not_tenpai: ["未听牌", "Not ready"],
  gold_discarded_me: ["你打过金: 本盘只能自摸", "You discarded a gold: you may only win by self-draw"],
  gold_discarded_badge: ["打过金", "gold discarded"],
  gold_discard_warn: ["打出金后, 本盘只能自摸", "After discarding a gold you may only win by self-draw"],
  gold_forbidden: ["本玩法不能打金", "Golds may not be discarded here"],
  xian_jin: ["闲金", "闲金 (any tile)"],
  xian_jin_me: ["闲金: 不能吃胡, 过一圈后才能自摸", "闲金: no discard wins; self-draw only from your second draw"],
  jin_kan: ["金坎", "金坎"],
  jin_kan_me: ["金坎: 手牌已锁, 摸到金即胡", "金坎: hand locked; drawing a gold wins"],
  last_group: ["最后一组: 只摸不打", "Last group: draw only"],
  hint: ["提示", "Hint"],
  hint_says: ["建议: {action} — {reason}", "Suggest: {action} — {reason}"],
  auto_pass: ["自动过", "Auto-pass"],
  tuoguan: ["托管", "Auto-play (托管)"],
  select_tile: ["点选一张牌, 再点一次打出", "Tap a tile, tap again to discard"],
  error: ["错误: {msg}", "Error: {msg}"],
  // actions
  "act.discard": ["打出 {tile}", "Discard {tile}"],
  "act.win": ["胡", "Win"],
  "act.win_self": ["自摸", "Win (self-draw)"],
  "act.win_discard": ["胡 {tile} (点炮: {name})", "Win on {tile} from {name}"],
  "act.win_heaven": ["天胡", "Heavenly win"],
  "act.pong": ["碰 {tile}", "Pong {tile}"],
  "act.kong": ["杠 {tile}", "Kong {tile}"],
  "act.chow": ["吃 {tile} ({pair})", "Chow {tile} with {pair}"],
  "act.pass": ["过", "Pass"],
  "act.concealed_kong": ["暗杠 {tile}", "Concealed kong {tile}"],
  "act.added_kong": ["加杠 {tile}", "Add kong {tile}"],
  "act.three_golds": ["三金倒", "Three golds"],
  "act.rob_gold": ["抢金", "Rob the gold"],
  "act.rob_gold_tile": ["庄家抢金 (打 {tile})", "Dealer robs the gold (discard {tile})"],
  "act.jin_kan": ["金坎 (打 {tile})", "金坎 (discard {tile})"],
  "act.ready": ["准备", "Ready"],
  "help.win": ["和牌: 牌型已成", "declare the win"],
  "help.pong": ["用两张相同的牌碰, 然后出牌", "take it with a pair, then discard"],
  "help.kong": ["明杠: 用三张相同的牌杠, 从牌尾补一张", "exposed kong with three of a kind, replacement from the tail"],
  "help.chow": ["上家的牌组成顺子, 然后出牌", "make a sequence with it, then discard"],
  "help.pass": ["放弃本次机会", "decline"],
  "help.concealed_kong": ["四张相同的手牌开暗杠, 从牌尾补一张", "four of a kind in hand: concealed kong, replacement from the tail"],
  "help.added_kong": ["把第四张加到碰上, 从牌尾补一张", "add the fourth tile to your pong, replacement from the tail"],
  "help.three_golds": ["手握三张金即可胡牌 (算自摸)", "holding three golds wins at once (scores as self-draw)"],
  "help.rob_gold": ["首轮听牌, 拿翻出的金胡牌 (算自摸)", "ready on the first go-round: take the indicator and win (self-draw)"],
  "help.jin_kan": ["打出这张并宣布金坎: 手牌锁定, 摸到金即胡 (+70)", "discard and declare 金坎: hand locked, a drawn gold wins (+70)"],
  "help.heaven": ["庄家起手即胡", "the dealer's starting hand already wins"],
  // end of hand
  hand_over: ["本盘结束", "Hand over"],
  winner_is: ["{name} 胡牌", "{name} wins"],
  win_self: ["自摸", "self-draw"],
  win_discard: ["{name} 点炮", "on {name}'s discard"],
  "wintype.self_draw": ["自摸", "self-draw"],
  "wintype.discard": ["点炮", "on a discard"],
  "wintype.rob_gold": ["抢金", "robbed the gold"],
  "wintype.three_golds": ["三金倒", "three golds"],
  "wintype.heavenly": ["天胡", "heavenly hand"],
  "wintype.last_group": ["最后一组自摸", "last-group self-draw"],
  "wintype.rob_kong": ["抢杠", "robbed a kong"],
  draw_game: ["流局 (黄庄)", "Draw (no winner)"],
  winning_hand: ["胡牌牌型", "Winning hand"],
  gold_as: ["金作 {tile}", "gold as {tile}"],
  breakdown: ["算分", "Score breakdown"],
  payments: ["本盘得失", "Payments"],
  totals: ["累计", "Match totals"],
  silver_change: ["银子 {c} (服务费 {f}, 余 {b})", "silver {c} (fee {f}, balance {b})"],
  all_hands: ["各家手牌", "All hands"],
  specials: ["特殊牌型: {list}", "Specials: {list}"],
  open_replay: ["回放与复盘", "Replay & review"],
  match_over: ["比赛结束", "Match over"],
  standings: ["最终排名", "Final standings"],
  back_to_lobby: ["返回大厅", "Back to the lobby"],
  seed: ["种子 {seed}", "seed {seed}"],
  // replay
  replay_title: ["牌局回放 #{id}", "Replay of hand #{id}"],
  step: ["第 {i}/{n} 步", "Step {i}/{n}"],
  prev: ["◀ 上一步", "◀ Back"],
  next: ["下一步 ▶", "Forward ▶"],
  first: ["⏮ 开始", "⏮ Start"],
  last: ["结束 ⏭", "End ⏭"],
  review_seat: ["复盘座位", "Review seat"],
  review_none: ["此步无需决定", "No decision at this step"],
  played: ["实际: {action}", "Played: {action}"],
  bot_choice: ["机器人: {action}", "Bot: {action}"],
  agree: ["一致", "agrees"],
  differ: ["不同", "differs"],
  agreement: ["一致率 {a}/{n}", "Agreement {a}/{n}"],
  not_found: ["找不到该牌局 (未结束?)", "Hand not found (not finished yet?)"],
  "ev.start": ["开局", "Start"],
  "ev.deal": ["发牌", "Deal"],
};

function detect() {
  try {
    const saved = localStorage.getItem("fjmj.lang");
    if (saved === "zh" || saved === "en") return saved;
  } catch (_e) {
    /* storage unavailable */
  }
  const nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return nav.toLowerCase().startsWith("zh") ? "zh" : "en";
}

let lang = detect();

export function getLang() {
  return lang;
}

export function setLang(l) {
  lang = l === "zh" ? "zh" : "en";
  try {
    localStorage.setItem("fjmj.lang", lang);
  } catch (_e) {
    /* storage unavailable */
  }
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

/** Translate a key with {placeholders}. Unknown keys are shown as they are. */
export function t(key, kw = {}) {
  const pair = M[key];
  let text = pair ? pair[lang === "zh" ? 0 : 1] : key;
  for (const [k, v] of Object.entries(kw)) text = text.split(`{${k}}`).join(String(v));
  return text;
}

export function has(key) {
  return key in M;
}

/** A {zh, en} object from the server (score terms, specials) in the UI language. */
export function pick(obj) {
  if (!obj) return "";
  return lang === "zh" ? obj.zh || obj.en || "" : obj.en || obj.zh || "";
}

document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
