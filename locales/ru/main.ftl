# kozyr — русский.
# Сообщения в Telegram HTML, кроме ключей `plain` в src/i18n.rs
# (кнопки, всплывающие ответы, описания команд): в них разметки нет.

## Языки и игры

language-name = Русский
game-kozel = Козёл
game-hearts = Червы
suit-spades = пики
suit-hearts = червы
suit-diamonds = бубны
suit-clubs = трефы
team-name = { $first } и { $second }
ai-player = 🤖 Бот { $number }
ai-stand-in = 🤖 за { $name }

## Описания команд

cmd-new = Открыть стол (Козёл или Червы)
cmd-kozel = Открыть стол для Козла
cmd-hearts = Открыть стол для Червей
cmd-help = Как играть с ботом
cmd-rules = Правила вкратце
cmd-score = Счёт за этим столом
cmd-stats = Рейтинг этого чата
cmd-settings = Язык, таймер хода, настройки игры (админы)
cmd-stop = Закрыть стол (создатель или админ)
cmd-kick = Убрать игрока: ответьте на его сообщение (админ)
cmd-lang = Сменить язык чата

## Помощь, правила, знакомство

help-group =
    <b>Козёл и Червы на четверых</b>
    /new — открыть стол и выбрать игру (коротко: /kozel, /hearts)
    Садитесь кнопками, пустые места займут боты, затем «Начать».
    Карты придут вам в личные сообщения: нажимайте на карты, чтобы выбрать, затем «Ходить», «Бить» или «Сбросить».
    /rules — правила · /score — счёт стола · /stats — рейтинг
    /settings — язык и таймер (админы) · /stop — закрыть стол
help-group-hand-button =
    <b>Козёл и Червы на четверых</b>
    /new — открыть стол и выбрать игру (коротко: /kozel, /hearts)
    Садитесь кнопками, пустые места займут боты, затем «Начать».
    Нажмите «Мои карты» под столом, чтобы увидеть свои карты — их видите только вы: выберите карты, затем «Ходить», «Бить» или «Сбросить».
    /rules — правила · /score — счёт стола · /stats — рейтинг
    /settings — язык и таймер (админы) · /stop — закрыть стол
help-private =
    <b>Привет! Я провожу Козла и Червы в групповых чатах.</b>
    Добавьте меня в группу и отправьте там /new. Ваши карты будут приходить сюда.
help-private-hand-button =
    <b>Привет! Я провожу Козла и Червы в каналах серверов.</b>
    Добавьте меня на сервер и отправьте /new в канале. Ваши карты будут там же, под кнопкой стола «Мои карты»: их видите только вы.
start-welcome =
    <b>Добро пожаловать!</b> Теперь я могу присылать вам карты.
    Вернитесь в группу и сядьте за стол или добавьте меня в группу и отправьте /new.
start-seated = Вы сели на место { $seat } в <b>{ $group }</b>. Карты будут приходить сюда.
start-seated-hand-button = Вы сели на место { $seat } в <b>{ $group }</b>. Нажмите «Мои карты» под столом, чтобы увидеть свои карты.
game-begins = <b>{ $game }: игра началась!</b> Ваши карты — в личном чате со мной.
game-begins-hand-button = <b>{ $game }: игра началась!</b> Нажмите «Мои карты», чтобы увидеть свои карты: их видите только вы.
deal-begins = Сдача { $deal }: сдавал { $dealer }, ходит { $leader }.
rules-kozel =
    <b>Козёл</b> — четыре игрока, две команды; партнёры сидят друг напротив друга.
    36 карт, от младшей к старшей: 6 7 8 9 В Д К 10 Т. Очки: туз 11, десятка 10, король 4, дама 3, валет 2 — всего 120 в сдаче.
    У каждого по 4 карты. Из середины колоды открывают карту: её масть — козырь.
    Ведущий ходит одной или несколькими картами одной масти. Остальные по очереди отвечают тем же числом карт: <b>бьют</b> (каждая карта бьёт одну из выигрывающих: старше той же масти или козырем) или <b>сбрасывают</b> (рубашкой вверх).
    Кто побил последним, забирает взятку; все добирают до 4 карт, начиная с забравшего.
    <b>Молодка</b>: четыре карты одной масти можно сыграть в любой момент, даже не в свой ход, — она ведёт взятку.
    61 очко выигрывает сдачу. Проигравшие получают 2 штрафных очка, 4 — если набрали 30 или меньше, 6 — если не взяли ни одной взятки. 60 : 60 — это <b>яйца</b>: штрафа нет.
    Команда, набравшая 12 штрафных очков, — <b>козёл</b> 🐐, а если была сдача 60 : 60 — козёл с яйцами.
rules-hearts =
    <b>Червы</b> — четыре игрока, каждый сам за себя. 52 карты, по 13 на руках.
    Перед сдачей передайте 3 карты: налево, направо, напротив, затем без передачи.
    Первую взятку начинает 2♣. Ходите в масть, если можете; взятку берёт старшая карта заходной масти.
    Каждая ♥ — 1 очко, дама ♠ — 13. Заходить с червей нельзя, пока черву не сбросили на другую масть (с настройкой «любая черва вскрывает» — пока её не сыграли), если только на руках не одни червы; на первой взятке очков быть не может.
    С опцией «выстрел в луну» тот, кто взял все 26 очков, получает 0, а остальные — по 26.
    Игра заканчивается, когда кто-то набирает порог; побеждает меньшая сумма.

## Сбор игроков

choose-game = Во что играем?
lobby-title = <b>{ $game }</b> — новый стол
lobby-created-by = Открыл(а) { $name }
lobby-team = <b>Команда { $team }</b>
lobby-partners = Партнёры сидят напротив: места 1 и 3, места 2 и 4.
lobby-seat = { $seat }. { $name }
lobby-seat-free = { $seat }. — свободно —
lobby-waiting =
    { $count ->
        [one] Ждём ещё { $count } игрока.
        [few] Ждём ещё { $count } игроков.
        [many] Ждём ещё { $count } игроков.
       *[other] Ждём ещё { $count } игрока.
    }
lobby-ready = Все места заняты: создатель или админ может начинать.
lobby-unreachable = ⚠️ { $name }, я пока не могу вам написать: нажмите свою кнопку ниже, затем «Запустить».
btn-join = Сесть
btn-take-seat = Место { $seat }
btn-leave = Встать
btn-add-ai = Добавить бота
btn-start = Начать
btn-open-dm = { $name }: открыть мой чат

## Стол

table-title = <b>{ $game }</b> · сдача { $deal }
table-trump = Козырь: { $card } ({ $suit })
table-stock =
    { $count ->
        [one] В колоде: { $count } карта
        [few] В колоде: { $count } карты
        [many] В колоде: { $count } карт
       *[other] В колоде: { $count } карты
    }
table-stock-empty = Колода кончилась.
table-turn = Ход: <b>{ $name }</b>
table-turn-allowance = Ход: <b>{ $name }</b> · ⏳ { $seconds } с на ход
table-to-lead = Заходит <b>{ $name }</b>.
table-played = { $name }: { $cards }
table-passed = { $name }: { $backs } (сброс)
table-winning = Берёт: { $name }
table-molodka = Молодка у <b>{ $name }</b>!
table-last-trick =
    { $points ->
        [one] Прошлая взятка: { $name }, { $points } очко.
        [few] Прошлая взятка: { $name }, { $points } очка.
        [many] Прошлая взятка: { $name }, { $points } очков.
       *[other] Прошлая взятка: { $name }, { $points } очка.
    }
table-tricks =
    { $count ->
        [one] { $team }: { $count } взятка
        [few] { $team }: { $count } взятки
        [many] { $team }: { $count } взяток
       *[other] { $team }: { $count } взятки
    }
table-series = Серия (с { $loss } штрафными очками команда — козёл):
table-defeat = { $team }: { $points }
table-eggs-seen = 🥚 В этой серии уже были яйца.
hearts-pass-left = налево
hearts-pass-right = направо
hearts-pass-across = напротив
hearts-no-passing = В этой сдаче карты не передают.
hearts-passing =
    { $count ->
        [one] Передаём три карты { $direction }: ждём { $count } игрока.
        [few] Передаём три карты { $direction }: ждём { $count } игроков.
        [many] Передаём три карты { $direction }: ждём { $count } игроков.
       *[other] Передаём три карты { $direction }: ждём { $count } игрока.
    }
hearts-broken = ♥ Червы вскрыты.
hearts-totals = Итоги (игра до { $target }):
hearts-total =
    { $points ->
        [one] { $name }: { $points } очко
        [few] { $name }: { $points } очка
        [many] { $name }: { $points } очков
       *[other] { $name }: { $points } очка
    }
hearts-deal-points =
    { $points ->
        [one] { $name }: { $points } очко за сдачу
        [few] { $name }: { $points } очка за сдачу
        [many] { $name }: { $points } очков за сдачу
       *[other] { $name }: { $points } очка за сдачу
    }

## Итоги

deal-over = <b>Сдача { $deal } окончена</b>
deal-team-result =
    { $team }: { $points ->
        [one] { $points } очко
        [few] { $points } очка
        [many] { $points } очков
       *[other] { $points } очка
    }, { $tricks ->
        [one] { $tricks } взятка
        [few] { $tricks } взятки
        [many] { $tricks } взяток
       *[other] { $tricks } взятки
    }
deal-defeat =
    { $points ->
        [one] { $team } получают { $points } штрафное очко.
        [few] { $team } получают { $points } штрафных очка.
        [many] { $team } получают { $points } штрафных очков.
       *[other] { $team } получают { $points } штрафного очка.
    }
deal-no-trick = { $team } не взяли ни одной взятки.
deal-eggs = 🥚 <b>Яйца!</b> 60 : 60 — штрафа нет ни у кого.
series-score = Серия: { $first } { $a } : { $b } { $second }
series-over = <b>Серия окончена</b>
series-goat = 🐐 <b>{ $team }</b> — козлы!
series-goat-eggs = 🐐🥚 <b>{ $team }</b> — козлы с яйцами!
hearts-deal-over = <b>Сдача { $deal } окончена</b>
hearts-shot-moon = 🌙 <b>{ $name }</b> выстрелил(а) в луну!
hearts-game-over = <b>Игра окончена</b>
hearts-rank =
    { $points ->
        [one] { $place }. { $name } — { $points } очко
        [few] { $place }. { $name } — { $points } очка
        [many] { $place }. { $name } — { $points } очков
       *[other] { $place }. { $name } — { $points } очка
    }
hearts-winner = 🏆 Побеждает <b>{ $name }</b>!

## Рука

hand-title = <b>{ $game }</b> · { $group }
hand-table = На столе:
hand-your-lead = 👉 <b>Ваш ход</b>: заходите одной или несколькими картами одной масти.
hand-your-answer =
    { $count ->
        [one] 👉 <b>Ваш ход</b>: побейте или сбросьте { $count } карту.
        [few] 👉 <b>Ваш ход</b>: побейте или сбросьте { $count } карты.
        [many] 👉 <b>Ваш ход</b>: побейте или сбросьте { $count } карт.
       *[other] 👉 <b>Ваш ход</b>: побейте или сбросьте { $count } карты.
    }
hand-waiting = Ждём: { $name }.
hand-turn-allowance = ⏳ На каждый ход — { $seconds } с.
hand-selected = Выбрано: { $cards }
hand-select-hint = Нажимайте на карты, чтобы выбрать их.
hand-can-beat = Можно побить: { $options }
hand-cannot-beat =
    { $count ->
        [one] Побить нечем: сбросьте { $count } карту.
        [few] Побить нечем: сбросьте { $count } карты.
        [many] Побить нечем: сбросьте { $count } карт.
       *[other] Побить нечем: сбросьте { $count } карты.
    }
hand-selection-beats = ✓ Выбранные карты бьют.
hand-selection-passes = Выбранные карты не бьют; их можно сбросить.
hand-molodka = У вас <b>молодка</b>: её можно сыграть сейчас, даже не в свой ход.
hand-you-passed = Вы сбросили рубашкой вверх: { $cards }
hand-ai-playing = 🤖 За вас играет бот. Нажмите «Вернуться за стол», чтобы играть самому.
hand-deal-over = Сдача окончена: итоги — в группе.
hand-series-over = Серия окончена.
hand-hearts-pass = Выберите три карты, чтобы передать { $direction }.
hand-hearts-passed = Вы передали { $cards }; ждём остальных.
hand-hearts-received = Вам передали: { $cards }
hand-hearts-play = 👉 <b>Ваш ход</b>: нажмите на карту, чтобы сыграть её.
hand-hearts-unplayable = Карты с пометкой { $mark } сейчас сыграть нельзя.
btn-lead = Ходить
btn-beat = Бить
btn-pass = Сбросить
btn-molodka = Молодка!
btn-clear = Отменить выбор
btn-hearts-pass = Передать 3
btn-take-back = Вернуться за стол
btn-rematch = Реванш (те же места)

## Всплывающие ответы: правила

err-not-your-turn = Сейчас не ваш ход.
err-deal-over = Эта сдача окончена.
err-series-over = Серия окончена.
err-not-in-hand = У вас нет карты { $card }.
err-no-cards = Сначала выберите хотя бы одну карту.
err-mixed-suits = Заходить можно только картами одной масти.
err-already-led = Уже зашли: бейте или сбрасывайте.
err-nothing-led = Ещё никто не зашёл: сначала заход.
err-wrong-count =
    { $expected ->
        [one] Нужна ровно { $expected } карта, а не { $got }.
        [few] Нужно ровно { $expected } карты, а не { $got }.
        [many] Нужно ровно { $expected } карт, а не { $got }.
       *[other] Нужно ровно { $expected } карты, а не { $got }.
    }
err-cannot-beat = Эти карты не бьют { $target }.
err-no-molodka = Молодка — это четыре карты одной масти.
err-molodka-outranked = На столе уже молодка игрока ближе к заходившему.
err-wrong-game = Эта кнопка от другой игры.
err-must-follow-suit = Нужно ходить в масть: { $suit }.
err-hearts-not-broken = Червы ещё не вскрыты: заходите с другой масти.
err-no-points-first-trick = На первой взятке нельзя сбрасывать очки.
err-lead-two-of-clubs = Первая взятка начинается с 2♣.
err-pass-three = Выберите ровно три карты для передачи.
err-already-passed = Вы уже передали карты.
err-not-passing = Сейчас карты не передают.
err-still-passing = Подождите, пока все передадут карты.
err-game-over = Игра окончена.

## Всплывающие ответы: остальное

err-not-seated = Вы не сидите за этим столом.
err-already-seated = Вы уже сидите за столом.
err-table-full = Все места заняты.
err-seat-taken = Это место занято.
err-stale = Эта кнопка устарела: используйте последнее сообщение.
err-menu-closed = Это меню уже закрыто: отправьте команду ещё раз, чтобы открыть новое.
err-not-allowed = Вам это нельзя.
err-admin-only = Это может только создатель стола или администратор.
err-no-table = Здесь нет открытого стола: отправьте /new.
err-table-exists = В этом чате уже есть стол.
table-shown-again = В этом чате уже есть стол: вот он, ниже.
err-need-four = Сначала нужно занять все четыре места.
err-game-started = Игра уже началась.
err-cannot-dm = Я не могу вам написать: откройте мой чат, нажмите «Запустить» и попробуйте снова.
err-group-only = Это работает в чате, где вы играете, а не здесь.
err-bad-button = Эта кнопка не работает.
err-try-again = Что-то пошло не так, попробуйте ещё раз.
err-too-fast = Слишком много нажатий: подождите немного и нажмите снова.
err-anonymous = Я не вижу, кто пишет: анонимные администраторы и каналы не могут играть. Отключите «Анонимность» и отправьте команду снова.
err-not-your-question = Это не ваш вопрос: ответить может только тот, кто спросил.
err-other-chat = Эта кнопка от стола в другом чате: нажмите её там.
told-in-group = { $name }, я не могу написать вам в личные сообщения (откройте мой чат и нажмите «Запустить»), поэтому отвечаю здесь:
told-from = В группе <b>{ $group }</b>:

## Таймеры

timer-reminder = ⏰ { $name }, на ход осталось { $seconds } с.
timer-reminder-dm = ⏰ На ход осталось { $seconds } с.
timer-auto-played = ⌛ У { $name } вышло время; за него сделан безопасный ход.
timer-handed-to-ai =
    { $count ->
        [one] 🤖 { $name } пропустил(а) { $count } ход подряд; пока его нет, играет бот.
        [few] 🤖 { $name } пропустил(а) { $count } хода подряд; пока его нет, играет бот.
        [many] 🤖 { $name } пропустил(а) { $count } ходов подряд; пока его нет, играет бот.
       *[other] 🤖 { $name } пропустил(а) { $count } хода подряд; пока его нет, играет бот.
    }
timer-took-back = 👋 { $name } снова за столом.
unreachable-to-ai = 🤖 Бот больше не может писать игроку { $name }; пока он снова не напишет боту, за него играет бот.

## Настройки

settings-title = <b>Настройки</b>
settings-language = Язык: { $lang }
settings-timer = Таймер хода: { $seconds } с
settings-timer-none = Таймер хода: без ограничения
settings-hearts-target =
    { $points ->
        [one] Червы идут до { $points } очка
       *[other] Червы идут до { $points } очков
    }
settings-saved = Сохранено.
settings-moon-on = Выстрел в луну: включён
settings-moon-off = Выстрел в луну: выключен
btn-moon-on = Выстрел в луну: вкл.
btn-moon-off = Выстрел в луну: выкл.
settings-break-any = Червы вскрывает любая сыгранная черва
settings-break-discard = Червы вскрывает только черва, сброшенная на другую масть
btn-break-any = Вскрытие червей: любая черва
btn-break-discard = Вскрытие червей: только сброс
btn-seconds = { $seconds } с
btn-no-limit = Без ограничения
btn-points =
    { $points ->
        [one] { $points } очко
        [few] { $points } очка
        [many] { $points } очков
       *[other] { $points } очка
    }
lang-choose = Выберите язык чата:
lang-set = Язык: { $lang }

## Счёт и статистика

score-none = Здесь сейчас не играют. Отправьте /new, чтобы открыть стол.
stats-title = <b>Рейтинг</b>
stats-line =
    { $place }. { $name } — { $games ->
        [one] { $games } игра
        [few] { $games } игры
        [many] { $games } игр
       *[other] { $games } игры
    }, { $wins ->
        [one] { $wins } победа
        [few] { $wins } победы
        [many] { $wins } побед
       *[other] { $wins } победы
    }
stats-goats =
    { $count ->
        [one] 🐐 козёл { $count } раз
        [few] 🐐 козёл { $count } раза
        [many] 🐐 козёл { $count } раз
       *[other] 🐐 козёл { $count } раза
    }
stats-empty = В этом чате ещё нет законченных игр.

## Закрыть стол, убрать игрока

stop-confirm = Закрыть стол? Текущая игра пропадёт.
stop-kept = Стол не закрыт: игра продолжается.
btn-stop-yes = Да, закрыть
btn-stop-no = Нет, играем дальше
stopped = { $name } закрыл(а) стол.
kicked = { $name } покидает стол; место занимает бот.
kick-how = Ответьте на сообщение игрока командой /kick.

## Discord

discord-my-hand = Мои карты
discord-your-turn = ваш ход
discord-press-my-hand = нажмите «Мои карты», чтобы увидеть свои карты
discord-pick-cards = Выберите карты
discord-no-hand = У вас нет карт за этим столом.

## Доставка

lobby-started = Игра началась: стол ниже.

## Мини-приложение

webapp-open = 🃏 Открыть стол
webapp-link = 🃏 Играть в приложении
webapp-your-cards = Ваши карты
webapp-spectator = Вы наблюдаете: у вас нет места за этим столом.
webapp-reconnecting = Переподключение…
webapp-table = Стол
webapp-unauthorized = Откройте эту страницу из Telegram: вход отсутствует, устарел или недействителен.
webapp-forbidden = За этим столом можно играть только своим местом.
webapp-no-table = Этот стол уже закрыт.
