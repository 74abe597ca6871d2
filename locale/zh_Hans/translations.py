"""Translations of our messages, by msgid (a list: the plural forms).

scripts/i18n_update.py fills the catalogues from this and rewrites it from them;
docs/i18n.md has the glossary. Not imported by the application."""

TRANSLATIONS = {'%(a)s is better than %(b)s': '%(a)s 优于 %(b)s',
 '%(a)s rows only in the baseline, %(b)s only in the candidate': '%(a)s 行仅在基线中，%(b)s 行仅在候选中',
 '%(b)s is better than %(a)s': '%(b)s 优于 %(a)s',
 '%(b)s wins %(rate)s of the pairs': '%(b)s 赢得 %(rate)s 的配对',
 '%(baseline)s → %(candidate)s': '%(baseline)s → %(candidate)s',
 '%(c)s CI': '%(c)s 置信区间',
 "%(detector)s's scores are not a list of numbers.": '%(detector)s 的分数不是数字列表。',
 '%(done)s of %(total)s': '%(done)s / %(total)s',
 '%(done)s of %(total)s pairs': '%(done)s / %(total)s 个配对',
 '%(done)s of %(total)s pairs judged · %(pct)s%%': '已评判 %(done)s / %(total)s 个配对 · %(pct)s%%',
 '%(done)s of %(total)s probe imported': ['已导入 %(done)s / %(total)s 个探针'],
 '%(done)s of %(total)s results': '%(done)s / %(total)s 个结果',
 '%(done)s of %(total)s results · %(pct)s%%': '%(done)s / %(total)s 个结果 · %(pct)s%%',
 '%(done)s of %(total)s row copied': ['已复制 %(done)s / %(total)s 行'],
 '%(done)s of about %(total)s row read': ['已读取 %(done)s / 约 %(total)s 行'],
 '%(ev)s judges two outputs side by side: use it in a pairwise run.': '%(ev)s 并排评判两个输出：请在成对运行中使用它。',
 '%(f)s leaned to the first slot, %(s)s to the second (50 %%: noise, not a preference)': '%(f)s '
                                                                                         '个偏向第一个位置，%(s)s '
                                                                                         '个偏向第二个位置（50 '
                                                                                         '%%：只是噪声，不是偏好）',
 '%(field)s: %(message)s': '%(field)s：%(message)s',
 '%(h)d h %(m)d min': '%(h)d 小时 %(m)d 分',
 '%(i)s of %(j)s pairs answered in both orders changed with the order': '两种顺序都有回答的 %(j)s 个配对中，有 '
                                                                        '%(i)s 个的结果随顺序改变',
 '%(i)s/%(o)s tokens': '%(i)s/%(o)s Token',
 '%(j)s rows the judge left unknown and %(h)s without a human verdict are not counted.': '评判模型判为未知的 '
                                                                                         '%(j)s '
                                                                                         '行和没有人工判定的 '
                                                                                         '%(h)s '
                                                                                         '行不计入。',
 '%(k)s repetition per row': ['每行重复 %(k)s 次'],
 '%(k)s repetitions of %(n)s rows': '%(n)s 行，每行重复 %(k)s 次',
 '%(k)s repetitions per row': '每行重复 %(k)s 次',
 '%(key)r is a row field, not a column.': '%(key)r 是行字段，不是列。',
 '%(key)s must be a number from 0 to %(max)s.': '%(key)s 必须是 0 到 %(max)s 之间的数字。',
 '%(key)s must be a number ≥ 0.': '%(key)s 必须是 ≥ 0 的数字。',
 '%(key)s must be a whole number from 0 to %(max)s.': '%(key)s 必须是 0 到 %(max)s 之间的整数。',
 '%(key)s must be a whole number ≥ 0.': '%(key)s 必须是 ≥ 0 的整数。',
 '%(key)s reference is longer than %(limit)s characters': '%(key)s 引用超过 %(limit)s 个字符',
 '%(key)s.url and %(key)s.uri must be strings': '%(key)s.url 和 %(key)s.uri 必须是字符串',
 '%(l)s ms · %(ti)s/%(to)s tokens for both calls': '%(l)s ms · 两次调用共 %(ti)s/%(to)s Token',
 '%(label)s: %(n)s scored row in %(bins)s bins from %(lo)s to %(hi)s; the most, %(most)s, in %(where)s.': ['%(label)s：%(n)s '
                                                                                                           '个已打分的行，分为 '
                                                                                                           '%(bins)s '
                                                                                                           '个区间，从 '
                                                                                                           '%(lo)s '
                                                                                                           '到 '
                                                                                                           '%(hi)s；最多的 '
                                                                                                           '%(most)s '
                                                                                                           '个位于 '
                                                                                                           '%(where)s。'],
 '%(level)s%% CI': '%(level)s%% 置信区间',
 '%(level)s%% bootstrap, %(iterations)s resamples, n ≥ %(min)s': '%(level)s%% bootstrap，重采样 '
                                                                 '%(iterations)s 次，n ≥ %(min)s',
 '%(m)d min %(s)d s': '%(m)d 分 %(s)d 秒',
 '%(model)r: give input and output prices per million tokens.': '%(model)r：请填写每百万 Token 的输入和输出价格。',
 '%(model)r: the %(side)s price must be a number ≥ 0 (USD per 1M tokens).': '%(model)r：%(side)s '
                                                                            '价格必须是 ≥ 0 的数字（每百万 '
                                                                            'Token 美元价格）。',
 '%(n)s bad row was skipped; see the error report.': ['已跳过 %(n)s 个错误行；请查看错误报告。'],
 '%(n)s bad rows were skipped; see the error report.': '已跳过 %(n)s 个错误行；请查看错误报告。',
 '%(n)s call in flight': ['%(n)s 个调用进行中'],
 '%(n)s completed run on this evaluation set so far: a trend needs two.': ['此评测集目前有 %(n)s '
                                                                           '次已完成的运行：趋势至少需要两次。'],
 '%(n)s evaluator': ['%(n)s 个评估器'],
 '%(n)s human correction': ['%(n)s 条人工修正'],
 '%(n)s message': ['%(n)s 条消息'],
 '%(n)s pair': ['%(n)s 个配对'],
 '%(n)s pair without two readable answers not counted': ['%(n)s 个没有两个可读回答的配对不计入'],
 '%(n)s regression': ['%(n)s 次退化'],
 '%(n)s req/min': '%(n)s 次请求/分钟',
 '%(n)s row': ['%(n)s 行'],
 '%(n)s row imported': ['已导入 %(n)s 行'],
 '%(n)s row read': ['已读取 %(n)s 行'],
 '%(n)s run as a table': ['以表格显示 %(n)s 次运行'],
 '%(n)s turn': ['%(n)s 轮'],
 '%(n)s unknown not counted': ['%(n)s 行未知不计入'],
 '%(name)r is %(content_type)s; the target output is %(output_type)s.': '%(name)r 的类型是 '
                                                                        '%(content_type)s；评测对象的输出是 '
                                                                        '%(output_type)s。',
 '%(name)r is %(content_type)s; the target output is Text.': '%(name)r 的类型是 '
                                                             '%(content_type)s；评测对象的输出是 Text。',
 '%(name)r is %(status)s; gate completed runs.': '%(name)r 处于 %(status)s 状态；门禁只检查已完成的运行。',
 '%(name)r is mapped to a column the evalset does not have: %(source)r.': '%(name)r '
                                                                          '映射到了评测集没有的列：%(source)r。',
 '%(name)r is mapped to the target output, but the experiment has no target.': '%(name)r '
                                                                               '映射到了评测对象的输出，但实验没有评测对象。',
 '%(name)r is not a header name.': '%(name)r 不是合法的请求头名称。',
 '%(name)r is not a variable of this evaluator.': '%(name)r 不是此评估器的变量。',
 '%(name)r must be required: both outputs count.': '%(name)r 必须为必填：两个输出都要计入。',
 '%(name)r runs on another evalset; only runs on the same evalset can be paired.': '%(name)r '
                                                                                   '运行在另一个评测集上；只有同一评测集上的运行才能成对对比。',
 '%(name)r: the target does not produce %(output)r (it offers %(offered)s).': '%(name)r：评测对象不产生 '
                                                                              '%(output)r（它提供 '
                                                                              '%(offered)s）。',
 '%(name)s (%(type)s)': '%(name)s（%(type)s）',
 '%(name)s (%(type)s, optional)': '%(name)s（%(type)s，可选）',
 '%(name)s (Conversation JSON)': '%(name)s（对话 JSON）',
 '%(name)s (row field)': '%(name)s（行字段）',
 '%(name)s has more than %(limit)s rows; a rows file is imported inside the request. Push a larger set as a version first (assay evalset push) and run on it.': '%(name)s '
                                                                                                                                                                '超过 '
                                                                                                                                                                '%(limit)s '
                                                                                                                                                                '行；行文件在请求内导入。更大的评测集请先作为版本推送（assay '
                                                                                                                                                                'evalset '
                                                                                                                                                                'push），再在其上运行。',
 '%(name)s has no columns: its rows have no fields.': '%(name)s 没有列：其行没有字段。',
 '%(name)s has no rows.': '%(name)s 没有行。',
 '%(name)s has no version %(version)s.': '%(name)s 没有版本 %(version)s。',
 '%(name)s is %(size)s bytes; a rows file is at most %(limit)s bytes. Push a larger set as a version first (assay evalset push) and run on it.': '%(name)s '
                                                                                                                                                 '有 '
                                                                                                                                                 '%(size)s '
                                                                                                                                                 '字节；行文件最多 '
                                                                                                                                                 '%(limit)s '
                                                                                                                                                 '字节。更大的评测集请先作为版本推送（assay '
                                                                                                                                                 'evalset '
                                                                                                                                                 'push），再在其上运行。',
 '%(name)s is %(size)s bytes; imports are at most %(max_import_bytes)s bytes.': '%(name)s 为 '
                                                                                '%(size)s '
                                                                                '字节；导入文件最多 '
                                                                                '%(max_import_bytes)s '
                                                                                '字节。',
 '%(name)s is %(size)s bytes; media files are at most %(max_media_bytes)s bytes.': '%(name)s 为 '
                                                                                   '%(size)s '
                                                                                   '字节；媒体文件最多 '
                                                                                   '%(max_media_bytes)s '
                                                                                   '字节。',
 '%(name)s is an %(kind)s file; this column holds %(expected)s.': '%(name)s 是 %(kind)s 文件；此列存放的是 '
                                                                  '%(expected)s。',
 '%(name)s is not a valid column name: start with a letter or _, then letters, digits or _, at most 64 characters': '%(name)s '
                                                                                                                    '不是有效的列名：请以字母或 '
                                                                                                                    '_ '
                                                                                                                    '开头，后接字母、数字或 '
                                                                                                                    '_，最多 '
                                                                                                                    '64 '
                                                                                                                    '个字符',
 '%(name)s is not an image or audio file (its content is not a known format).': '%(name)s '
                                                                                '不是图片或音频文件（其内容不是已知格式）。',
 '%(name)s is reserved (item_id, tags, human_verdict and label are row fields)': '%(name)s '
                                                                                 '是保留名称（item_id、tags、human_verdict '
                                                                                 '和 label 是行字段）',
 '%(name)s needs tool results': '%(name)s 需要工具结果',
 '%(name)s: fails first': '%(name)s：未通过在前',
 '%(name)s: give a text value (at most 8 KB).': '%(name)s：请填写文本值（最多 8 KB）。',
 '%(name)s: score ↑': '%(name)s：分数 ↑',
 '%(name)s: score ↓': '%(name)s：分数 ↓',
 '%(names)s: use {{persona}}, {{goal}}, {{stop_phrase}}, {{max_turns}} or a Text column.': '%(names)s：请使用 '
                                                                                           '{{persona}}、{{goal}}、{{stop_phrase}}、{{max_turns}} '
                                                                                           '或一个 '
                                                                                           'Text '
                                                                                           '列。',
 '%(p)s pass · %(f)s fail · %(u)s unknown': '%(p)s 通过 · %(f)s 未通过 · %(u)s 未知',
 '%(p)s pass, %(f)s fail, %(u)s unknown': '%(p)s 通过，%(f)s 未通过，%(u)s 未知',
 '%(problem)s; make the mapping again': '%(problem)s；请重新设置映射',
 '%(r)s results/s': '%(r)s 个结果/秒',
 '%(r)s rows/s': '%(r)s 行/秒',
 '%(r)s target outputs/s': '%(r)s 个评测对象输出/秒',
 '%(ref)s is not a valid http(s) URL': '%(ref)s 不是有效的 http(s) URL',
 '%(rows)s row': ['%(rows)s 行'],
 '%(s).1f s': '%(s).1f 秒',
 '%(s)d s': '%(s)d 秒',
 '%(source)r is not a Conversation the mapping feeds to a variable.': '%(source)r 不是映射传给某个变量的 '
                                                                      'Conversation。',
 '%(text)r is not an origin: give scheme://host[:port] (for example https://app.example.com), without a path or query.': '%(text)r '
                                                                                                                         '不是源：请填写 '
                                                                                                                         'scheme://host[:port]（例如 '
                                                                                                                         'https://app.example.com），不带路径或查询参数。',
 '%(uri)r is not an uploaded %(kind)s file of this workspace': '%(uri)r 不是此工作空间中已上传的 %(kind)s 文件',
 '%(url)r is not a URL.': '%(url)r 不是 URL。',
 '%(url)r: give scheme://host[:port] with http or https.': '%(url)r：请按 scheme://host[:port] '
                                                           '填写，scheme 为 http 或 https。',
 '%(username)r is already a member.': '%(username)r 已是成员。',
 '%(version)s is not greater than the latest version %(latest)s.': '%(version)s 不大于最新版本 '
                                                                   '%(latest)s。',
 '%(version)s is not greater than the latest version %(version2)s.': '%(version)s 不大于最新版本 '
                                                                     '%(version2)s。',
 '%(what)s is longer than %(max)s characters': '%(what)s 超过 %(max)s 个字符',
 '%(what)s must be a non-empty string, got %(got)s': '%(what)s 必须是非空字符串，实际为 %(got)s',
 '%(when)s ago': '%(when)s前',
 '%(where)s function.name': '%(where)s的 function.name',
 '%(where)s must be {id, type: function, function: {name, arguments}}': '%(where)s 必须是 {id, type: '
                                                                        'function, function: '
                                                                        '{name, arguments}}',
 '%(where)s: function.arguments must be a string of JSON text, got %(got)s': '%(where)s：function.arguments '
                                                                             '必须是 JSON 文本字符串，实际为 '
                                                                             '%(got)s',
 '%(where)s: id %(id)s is already used by message %(number)s': '%(where)s：id %(id)s 已被第 %(number)s '
                                                               '条消息使用',
 "%(where)s: type must be 'function', got %(got)s": "%(where)s：type 必须是 'function'，实际为 %(got)s",
 '%(who)s invites you to this workspace as <strong>%(role)s</strong>.': '%(who)s '
                                                                        '邀请你以<strong>%(role)s</strong>身份加入此工作空间。',
 '%(worse)s pass → fail, %(better)s fail → pass of %(n)s paired row': ['%(n)s 个配对行中 %(worse)s 个通过 '
                                                                       '→ 未通过，%(better)s 个未通过 → '
                                                                       '通过'],
 '(%(p)s of %(n)s rows priced)': '（%(n)s 行中有 %(p)s 行有定价）',
 '(each run over all its rows)': '（每次运行基于其全部行）',
 '(open the row for the whole text)': '（打开该行查看全文）',
 '(partial)': '（部分）',
 '(“A” here is B, the output shown first)': '（这里的“A”是 B，即先展示的输出）',
 '+ turn': '+ 轮次',
 ', ': '、',
 ", garak's exact resampling (seed %(seed)s)": '，garak 的精确重采样（种子 %(seed)s）',
 '1 to 500, default 25.': '1 到 500，默认 25。',
 'A %(kind)s target has no request to test.': '%(kind)s 评测对象没有可测试的请求。',
 'A %(status)s experiment cannot be cancelled.': '处于 %(status)s 状态的实验不能取消。',
 "A Conversation variable whose messages are sent before the judge's own user message, as chat messages. A Conversation placeholder in a message gives its transcript instead.": '一个 '
                                                                                                                                                                                 'Conversation '
                                                                                                                                                                                 '变量，其消息作为对话消息在评判模型自己的用户消息之前发送。在消息中使用 '
                                                                                                                                                                                 'Conversation '
                                                                                                                                                                                 '占位符则会插入其文字记录。',
 'A GET request has no body; put values in the URL.': 'GET 请求没有请求体；请把值放在 URL 中。',
 'A JSON array of messages: [{"role": "user", "content": "…"}, {"role": "assistant", "content": "…"}]; roles system, user, assistant, tool.': '消息的 '
                                                                                                                                              'JSON '
                                                                                                                                              '数组：[{"role": '
                                                                                                                                              '"user", '
                                                                                                                                              '"content": '
                                                                                                                                              '"…"}, '
                                                                                                                                              '{"role": '
                                                                                                                                              '"assistant", '
                                                                                                                                              '"content": '
                                                                                                                                              '"…"}]；角色可为 '
                                                                                                                                              'system、user、assistant、tool。',
 'A `name`, a `turn` (the shape the debug run takes), the `expected_verdict` (pass, fail or unknown) and an optional `note` (201). 400 names the field at fault, such as a required input variable of the draft that the turn lacks.': '一个 '
                                                                                                                                                                                                                                       '`name`、一个 '
                                                                                                                                                                                                                                       '`turn`（与调试运行的格式相同）、`expected_verdict`（pass、fail '
                                                                                                                                                                                                                                       '或 '
                                                                                                                                                                                                                                       'unknown）以及可选的 '
                                                                                                                                                                                                                                       '`note`（201）。返回 '
                                                                                                                                                                                                                                       '400 '
                                                                                                                                                                                                                                       '时会指明出错的字段，例如 '
                                                                                                                                                                                                                                       'turn '
                                                                                                                                                                                                                                       '缺少草稿中的必填输入变量。',
 'A better': 'A 更好',
 'A better: %(n)s': 'A 更好：%(n)s',
 "A calibration (garak/data/calibration/*.json) rates runs whose probe and detector names match with garak's Z; detector metrics (detector_metrics_summary.json) correct those detectors' intervals. The newest file of each kind is used.": '校准文件（garak/data/calibration/*.json）用 '
                                                                                                                                                                                                                                             'garak '
                                                                                                                                                                                                                                             '的 '
                                                                                                                                                                                                                                             'Z '
                                                                                                                                                                                                                                             '值为探针和检测器名称匹配的运行评级；检测器指标（detector_metrics_summary.json）用于校正这些检测器的区间。每种取最新的文件。',
 'A code evaluator calls no model: it costs nothing.': '代码评估器不调用模型，不产生成本。',
 'A content is {content_type: %(content_types)s, …}.': '内容的格式为 {content_type: %(content_types)s, '
                                                       '…}。',
 'A draft item already has the id %(item_id)s.': '草稿中已有数据项使用 id %(item_id)s。',
 'A garak reference file is at most 16 MB.': 'garak 参考文件最多 16 MB。',
 'A missing score (error, timeout, unknown) is never a pass and never a fail.': '缺失的分数（错误、超时、未知）既不算通过，也不算未通过。',
 'A pairwise judge compares the outputs of two or more finished experiments row by row, each pair in both orders: which answer is better, A, B or a tie.': '成对评估器逐行比较两个或更多已结束实验的输出，每对按两种顺序评判：哪个回答更好，A、B '
                                                                                                                                                           '还是平局。',
 'A pairwise judge needs a Text variable %(name)r.': '成对评估器需要一个 Text 变量 %(name)r。',
 'A pairwise run needs two finished experiments with target outputs on one evalset.': '成对运行需要同一评测集上两个有评测对象输出的已结束实验。',
 'A person who already signs in to Assay can be added by their username.': '已能登录 Assay '
                                                                           '的用户可以按用户名直接添加。',
 "A policy is an object like {'kind': 'threshold', 'threshold': 0.5}.": "策略是一个对象，例如 {'kind': "
                                                                        "'threshold', 'threshold': "
                                                                        '0.5}。',
 'A prompt on a model provider': '模型服务上的提示词',
 'A prompt with {{variables}}; the model answers a score in [0, 1] and a reason.': '一段带 {{变量}} '
                                                                                   '的提示词；模型回答 [0, '
                                                                                   '1] 内的分数和理由。',
 'A provider named %(name)r already exists.': '名为 %(name)r 的模型服务已存在。',
 "A provider's key is removed with its provider.": '模型服务的密钥随模型服务一起删除。',
 'A re-score takes only the experiment whose outputs it re-uses.': '重新打分只接受其复用输出的那个实验。',
 "A re-score uses its source's evalset version.": '重新打分使用其来源运行的评测集版本。',
 'A report of at most %(mb)s MB and %(probes)s probes. It is checked at once; the workers then import it probe by probe, and its page shows how far they are.': '报告最多 '
                                                                                                                                                                '%(mb)s '
                                                                                                                                                                'MB、%(probes)s '
                                                                                                                                                                '个探针。上传后立即检查；随后工作进程逐个探针导入，导入页面会显示进度。',
 "A report without garak's closing “completion” entry is refused; tick this to import the attempts it holds, marked partial.": '缺少 '
                                                                                                                               'garak '
                                                                                                                               '收尾“completion”条目的报告会被拒绝；勾选此项可导入其中已有的尝试，并标记为部分。',
 'A score is a number in [0, 1].': '分数是 [0, 1] 内的数字。',
 'A set has at most %(max_columns)s columns.': '一个评测集最多 %(max_columns)s 列。',
 'A test case needs a name.': '测试用例需要名称。',
 'A token needs a name.': '令牌需要名称。',
 'A workspace must keep at least one owner.': '工作空间必须至少保留一位所有者。',
 'A workspace needs a name.': '工作空间需要名称。',
 'A: %(a)s · B: %(b)s': 'A：%(a)s · B：%(b)s',
 'API docs': 'API 文档',
 'API key': 'API 密钥',
 'API tokens': 'API 令牌',
 'Actual': '实际',
 'Add': '添加',
 'Add a member': '添加成员',
 'Add a model provider': '添加模型服务',
 'Add a row to the draft': '向草稿添加一行',
 'Add a test case': '添加测试用例',
 "Add a token your application expects, then use it in an HTTP target's headers.": '添加你的应用需要的令牌，然后在 '
                                                                                   'HTTP '
                                                                                   '评测对象的请求头中使用它。',
 'Add an OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, DeepSeek…) so LLM judges can run.': '添加一个兼容 '
                                                                                                      'OpenAI '
                                                                                                      '的端点（OpenAI、Azure、vLLM、Ollama、DeepSeek……），LLM '
                                                                                                      '评估器才能运行。',
 'Add at least one evaluator version.': '请至少添加一个评估器版本。',
 'Add message': '添加消息',
 'Add or change a secret': '添加或修改密钥',
 'Add or change items': '添加或修改数据项',
 'Add or replace a secret': '添加或替换密钥',
 'Add provider': '添加模型服务',
 'Add row': '添加行',
 'Add rows one by one, or import a CSV or JSONL file.': '逐行添加，或导入 CSV 或 JSONL 文件。',
 'Add someone who has an account': '添加已有账号的成员',
 'Add variable': '添加变量',
 'Adds an existing user by `username` with a `role` (owner, editor or viewer; editor when left out). Owners only (403 otherwise). 400 names the field when no user has that username, the user is already a member or the role is unknown.': '按 '
                                                                                                                                                                                                                                             '`username` '
                                                                                                                                                                                                                                             '添加一个已有用户，并指定 '
                                                                                                                                                                                                                                             '`role`（owner、editor '
                                                                                                                                                                                                                                             '或 '
                                                                                                                                                                                                                                             'viewer；省略时为 '
                                                                                                                                                                                                                                             'editor）。仅限所有者（否则 '
                                                                                                                                                                                                                                             '403）。没有该用户名的用户、该用户已是成员或角色未知时返回 '
                                                                                                                                                                                                                                             '400，并指明字段。',
 'Advanced: repetitions, concurrency and chunk size': '高级：重复次数、并发数和分块大小',
 'Against the previous run': '与上一次运行相比',
 'Agreement': '一致率',
 'All evalsets': '全部评测集',
 'All evaluators': '全部评估器',
 'All kinds': '全部类型',
 'All statuses': '全部状态',
 'All tags': '全部标签',
 'Allowed origins': '允许的源',
 'Already have an account? <a href="%(url)s" id="invite-sign-in">Sign in</a> and you come back here to join.': '已有账号？<a '
                                                                                                               'href="%(url)s" '
                                                                                                               'id="invite-sign-in">登录</a>后会回到这里完成加入。',
 'An API key is stored. It is never shown again; type a new one to replace it. Changing the base URL removes the stored key: enter the key for the new endpoint with it.': '已保存 '
                                                                                                                                                                           'API '
                                                                                                                                                                           '密钥。它不会再显示；输入新的密钥即可替换。修改 '
                                                                                                                                                                           'Base '
                                                                                                                                                                           'URL '
                                                                                                                                                                           '会删除已保存的密钥：请同时填写新端点的密钥。',
 'An API token acts inside its own workspace; sign in to create or rename workspaces.': 'API '
                                                                                        '令牌只在自己的工作空间内生效；请登录后再创建或重命名工作空间。',
 'An evaluation set holds the rows experiments score: typed columns (text, images, audio), tags, and versions you commit.': '评测集存放实验要打分的行：有类型的列（文本、图片、音频）、标签，以及你提交的版本。',
 'An evaluation set named %(name)r already exists here.': '此处已有名为 %(name)r 的评测集。',
 'An evaluation set needs a name.': '评测集需要名称。',
 'An evaluator named %(name)r already exists here.': '此处已有名为 %(name)r 的评估器。',
 'An evaluator named %(name)r exists; rename it before restoring.': '已有名为 %(name)r 的评估器；恢复前请先重命名它。',
 'An evaluator needs a name.': '评估器需要名称。',
 'An experiment needs a name.': '实验需要名称。',
 'An experiment scores every row of an evaluation set with the evaluators you choose. Each step builds on the one before.': '实验用你选择的评估器为评测集的每一行打分。每一步都以上一步为基础。',
 'An external target takes no settings (got %(config)s).': '外部评测对象不接受任何设置（收到 %(config)s）。',
 'An http(s) URL, or upload a file below.': 'http(s) URL，或在下方上传文件。',
 'An import into the draft is under way; commit when it has finished.': '草稿正在导入；请等导入完成后再提交。',
 'An item id is a UUID.': '数据项 id 必须是 UUID。',
 'Answer': '回答',
 'Answer mode': '回答模式',
 'Answer:': '回答：',
 'Any evaluator': '任意评估器',
 'Any status': '任意状态',
 'Any tag': '任意标签',
 'Any verdict': '任意判定',
 'Anyone': '任何人',
 'App under test': '被测应用',
 'App under test (JSON of an HTTP or prompt target)': '被测应用（HTTP 或提示词评测对象的 JSON）',
 'Apply': '应用',
 'As a table': '以表格显示',
 'Asks the endpoint for its models (GET <base_url>/models) with the stored key and answers `ok`, a `message`, a few `models` and `latency_ms`. A refused address, a failure to connect or an HTTP error from the endpoint is an answer with `ok` false, not an error status. Owners only.': '用已保存的密钥向端点请求模型列表（GET '
                                                                                                                                                                                                                                                                                            '<base_url>/models），返回 '
                                                                                                                                                                                                                                                                                            '`ok`、一条 '
                                                                                                                                                                                                                                                                                            '`message`、几个 '
                                                                                                                                                                                                                                                                                            '`models` '
                                                                                                                                                                                                                                                                                            '和 '
                                                                                                                                                                                                                                                                                            '`latency_ms`。地址被拒绝、无法连接或端点返回 '
                                                                                                                                                                                                                                                                                            'HTTP '
                                                                                                                                                                                                                                                                                            '错误时，返回的是 '
                                                                                                                                                                                                                                                                                            '`ok` '
                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                            'false '
                                                                                                                                                                                                                                                                                            '的应答，而不是错误状态码。仅限所有者。',
 'Asks the endpoint for its models (or a 1-token reply from the default model) with the values above, before you save.': '用上面填写的值向端点请求模型列表（或让默认模型回复 '
                                                                                                                         '1 '
                                                                                                                         '个 '
                                                                                                                         'Token），无需先保存。',
 'Asks the endpoint for its models with the saved key (save changes first).': '用已保存的密钥向端点请求模型列表（请先保存修改）。',
 'Assay sends %(name)s itself, one key per row and repetition; remove this header.': 'Assay 会自行发送 '
                                                                                     '%(name)s，每行每次重复一个键；请删除此请求头。',
 'Assistant message': 'assistant 消息',
 "At least one message must have role 'user'.": "至少要有一条角色为 'user' 的消息。",
 'At most %(max_bindings)s evaluators per experiment.': '每个实验最多 %(max_bindings)s 个评估器。',
 'At most %(max_bulk)s changes per call.': '每次调用最多修改 %(max_bulk)s 处。',
 'At most %(max_tags)s tags of at most %(max_tag_len)s characters.': '最多 %(max_tags)s 个标签，每个最多 '
                                                                     '%(max_tag_len)s 个字符。',
 'At most %(max_tags)s tags of at most 40 characters.': '最多 %(max_tags)s 个标签，每个最多 40 个字符。',
 'Attach to the focused message as a content part': '作为内容片段附加到当前聚焦的消息',
 'Audio': '音频',
 "Authentication credentials were not provided: send an API token as 'Authorization: Bearer <key>' (or 'Token <key>'), or sign in.": '未提供身份凭证：请以 '
                                                                                                                                     "'Authorization: "
                                                                                                                                     'Bearer '
                                                                                                                                     "<key>'（或 "
                                                                                                                                     "'Token "
                                                                                                                                     "<key>'）发送 "
                                                                                                                                     'API '
                                                                                                                                     '令牌，或先登录。',
 'B %(b)s · tie %(t)s · A %(a)s · unknown %(u)s · position-inconsistent %(i)s': 'B %(b)s · 平局 '
                                                                                '%(t)s · A %(a)s · '
                                                                                '未知 %(u)s · 位置不一致 '
                                                                                '%(i)s',
 'B better': 'B 更好',
 'B better: %(n)s': 'B 更好：%(n)s',
 "B's win rate": 'B 的胜率',
 'Back to Assay': '返回 Assay',
 'Back to sign in': '返回登录',
 'Back to the comparison': '返回对比',
 'Back to the library': '返回评估器库',
 'Base URL': 'Base URL',
 'Baseline': '基线',
 'Baseline (A)': '基线（A）',
 'Baseline id.': '基线 id。',
 'Baseline ✓': '基线 ✓',
 'Body template': '请求体模板',
 'Body template (JSON)': '请求体模板（JSON）',
 'Both orders': '两种顺序',
 'Bradley–Terry strengths fitted on %(n)s judged pairs; each bar is the chance of beating an experiment of average strength, with its bootstrap interval (items resampled with all their pairs).': '在 '
                                                                                                                                                                                                   '%(n)s '
                                                                                                                                                                                                   '个已评判配对上拟合的 '
                                                                                                                                                                                                   'Bradley–Terry '
                                                                                                                                                                                                   '实力值；每个条形表示战胜一个平均实力实验的概率，附 '
                                                                                                                                                                                                   'bootstrap '
                                                                                                                                                                                                   '区间（按数据项连同其所有配对重采样）。',
 'By': '提交人',
 'By default nothing is imported if any row is bad; the error report names the line and column of each problem.': '默认情况下，只要有一行有问题就不导入任何内容；错误报告会指明每个问题所在的行和列。',
 'By status': '按状态',
 'By tag': '按标签',
 'By turn': '按轮次',
 'By verdict': '按判定',
 'CSV for Excel': 'Excel 用 CSV',
 'CSV only: start the file with a UTF-8 byte order mark, so Excel (Chinese Windows too) opens it as UTF-8': '仅限 '
                                                                                                            'CSV：文件以 '
                                                                                                            'UTF-8 '
                                                                                                            '字节顺序标记（BOM）开头，让 '
                                                                                                            'Excel（包括中文 '
                                                                                                            'Windows）按 '
                                                                                                            'UTF-8 '
                                                                                                            '打开',
 'CSV or JSONL file': 'CSV 或 JSONL 文件',
 'CSV with a byte order mark, so Excel (Chinese Windows too) shows Chinese text correctly': '带 BOM '
                                                                                            '的 '
                                                                                            'CSV，Excel（包括中文 '
                                                                                            'Windows）能正确显示中文',
 'CSV: a header row, then one row per item, UTF-8. JSONL: one JSON object per line.': 'CSV：一行表头，之后每个数据项一行，UTF-8 '
                                                                                      '编码。JSONL：每行一个 '
                                                                                      'JSON 对象。',
 'Cancel': '取消',
 'Cancel a pairwise run': '取消成对运行',
 'Cancel an experiment': '取消实验',
 'Cancelling: running chunks stop after their current rows.': '正在取消：运行中的分块处理完当前行后停止。',
 'Cancelling: the calls in flight are dropped.': '正在取消：进行中的调用会被放弃。',
 'Candidate': '候选',
 'Candidate **%(candidate)s** against baseline **%(baseline)s** (%(limits)s).': '候选 '
                                                                                '**%(candidate)s** '
                                                                                '对比基线 '
                                                                                '**%(baseline)s**（%(limits)s）。',
 'Candidate id.': '候选 id。',
 'Candidates (same evalset)': '候选（同一评测集）',
 'Cannot run:': '无法运行：',
 'Cannot tell the format of %(name)r: name it .csv or .jsonl, or say which.': '无法判断 %(name)r '
                                                                              '的格式：请将其命名为 .csv 或 '
                                                                              '.jsonl，或指明格式。',
 'Chance of beating the average': '战胜平均水平的概率',
 'Change': '变化',
 "Change a member's role": '修改成员角色',
 "Change a secret's value or origins": '修改密钥的值或源',
 'Change note': '变更说明',
 'Change the correction': '修改修正',
 'Changes a draft row: `data` (replacing the whole row), tags, human_verdict or label. Committed versions never change. 400 names the field at fault; 404 when the row is not in the draft.': '修改草稿中的一行：`data`（替换整行）、tags、human_verdict '
                                                                                                                                                                                              '或 '
                                                                                                                                                                                              'label。已提交的版本永不改变。返回 '
                                                                                                                                                                                              '400 '
                                                                                                                                                                                              '时会指明出错的字段；该行不在草稿中时返回 '
                                                                                                                                                                                              '404。',
 'Changes only the fields given. Leave `api_key` out (or empty) to keep the stored key; a new `base_url` drops it, so send the key for the new endpoint with it. Owners only; 400 names the field at fault.': '只修改给出的字段。省略 '
                                                                                                                                                                                                              '`api_key`（或留空）则保留已保存的密钥；新的 '
                                                                                                                                                                                                              '`base_url` '
                                                                                                                                                                                                              '会丢弃它，因此请同时发送新端点的密钥。仅限所有者；返回 '
                                                                                                                                                                                                              '400 '
                                                                                                                                                                                                              '时会指明出错的字段。',
 'Changes the draft and its details: name, description, tags, score_meaning, default_policy or config. Submitted versions never change; submit a new version to use the edited draft in experiments. Nothing is saved unless every field is valid: 400 names each problem (config problems by path), and is also the answer for a deleted evaluator.': '修改草稿及其详情：name、description、tags、score_meaning、default_policy '
                                                                                                                                                                                                                                                                                                                                                       '或 '
                                                                                                                                                                                                                                                                                                                                                       'config。已提交的版本永不改变；要在实验中使用修改后的草稿，请提交新版本。只有每个字段都有效时才会保存：返回 '
                                                                                                                                                                                                                                                                                                                                                       '400 '
                                                                                                                                                                                                                                                                                                                                                       '并指明每个问题（配置问题按路径），已删除的评估器也返回 '
                                                                                                                                                                                                                                                                                                                                                       '400。',
 'Changes the fields given; 400 names the field at fault.': '修改给出的字段；返回 400 时会指明出错的字段。',
 "Changes the name, description, tags or `columns`: the full new list, where `old_name` on a column renames it (the draft's rows follow). 400 names the problem when a change does not fit the draft's rows: a new required column, a type change of a column that holds values, or making a column with empty cells required. Committed versions never change.": '修改名称、描述、标签或 '
                                                                                                                                                                                                                                                                                                                                                                  '`columns`：完整的新列表，列上的 '
                                                                                                                                                                                                                                                                                                                                                                  '`old_name` '
                                                                                                                                                                                                                                                                                                                                                                  '表示重命名（草稿的行随之改变）。修改与草稿的行不符时返回 '
                                                                                                                                                                                                                                                                                                                                                                  '400 '
                                                                                                                                                                                                                                                                                                                                                                  '并说明问题：新增必填列、修改已有值的列的类型，或把有空单元格的列设为必填。已提交的版本永不改变。',
 "Changes the workspace's `name`; the slug stays. Owners only, from a signed-in session (403 otherwise); 400 when the name is empty.": '修改工作空间的 '
                                                                                                                                       '`name`，slug '
                                                                                                                                       '不变。仅限所有者，且需已登录的会话（否则 '
                                                                                                                                       '403）；名称为空时返回 '
                                                                                                                                       '400。',
 'Chat history': '对话历史',
 'Chat history variable': '对话历史变量',
 'Check the CI gate': '检查 CI 门禁',
 'Check the mapping below.': '请检查下方的映射。',
 'Check the name below.': '请检查下方的名称。',
 'Choose a model provider of this workspace.': '请选择此工作空间的模型服务。',
 'Choose a model.': '请选择模型。',
 'Choose a provider': '请选择模型服务',
 'Choose a template, a custom LLM judge or custom code.': '请选择模板、自定义 LLM 评估器或自定义代码。',
 'Choose an evalset version first.': '请先选择评测集版本。',
 'Choose an evalset version to map its columns.': '选择一个评测集版本以映射其列。',
 'Choose at least one candidate experiment.': '请至少选择一个候选实验。',
 'Choose the column of the scenario.': '请选择场景所在的列。',
 'Choose the provider the simulated user runs on.': '请选择模拟用户所用的模型服务。',
 'Choose the provider the target prompt runs on.': '请选择评测对象提示词所用的模型服务。',
 'Choose the provider your prompt app runs on.': '请选择你的提示词应用所用的模型服务。',
 'Choose two versions.': '请选择两个版本。',
 'Chunk size': '分块大小',
 'Chunk size must be between 10 and 10,000.': '分块大小必须在 10 到 10,000 之间。',
 'Click a variable to insert it at the cursor': '点击变量，将其插入到光标处',
 'Click a variable to insert it at the cursor:': '点击变量，将其插入到光标处：',
 'Clone': '克隆',
 'Clone an experiment': '克隆实验',
 'Clone this experiment': '克隆此实验',
 'Cloned as a draft. Review it, then launch.': '已克隆为草稿。检查后再启动。',
 'Close': '关闭',
 'Close an external run': '关闭外部运行',
 'Code': '代码',
 'Code language': '代码语言',
 'Column': '列',
 'Column %(name)r is empty in some rows; fill them before making it required.': '列 %(name)r '
                                                                                '在某些行中为空；请先填写再设为必填。',
 'Column %(source)r holds %(content_type)s values in %(count)s rows; clear them before changing its type.': '列 '
                                                                                                            '%(source)r '
                                                                                                            '在 '
                                                                                                            '%(count)s '
                                                                                                            '行中存有 '
                                                                                                            '%(content_type)s '
                                                                                                            '值；请先清空它们再修改类型。',
 "Column names are letters, digits and _ (they are the variables evaluators and experiments use). A header that is not such a name gets its usual name (问题 → input) or its pinyin; the header is kept as the column's description.": '列名由字母、数字和 '
                                                                                                                                                                                                                                     '_ '
                                                                                                                                                                                                                                     '组成（评估器和实验用它们作变量名）。不符合的表头会取常用名称（问题 '
                                                                                                                                                                                                                                     '→ '
                                                                                                                                                                                                                                     'input）或其拼音；原表头保留为列的描述。',
 'Columns': '列',
 'Columns must be a list.': '列必须是一个列表。',
 'Columns saved.': '列已保存。',
 'Comes from': '来源',
 'Comma-separated': '用逗号分隔',
 'Comma-separated, e.g. rag, safety': '用逗号分隔，例如 rag, safety',
 'Commit': '提交',
 'Commit an evaluation set version': '提交评测集版本',
 'Commit the draft as a version': '将草稿提交为版本',
 'Commit the draft as a version: experiments run on committed versions, whose rows never change.': '将草稿提交为一个版本：实验在已提交的版本上运行，版本中的行永不改变。',
 'Commit version': '提交版本',
 'Committed': '提交于',
 'Committing': '提交中',
 'Committing version %(v)s': '正在提交版本 %(v)s',
 'Compare': '对比',
 'Compare experiments': '对比实验',
 'Compare runs with a baseline': '将运行与基线对比',
 'Compare with %(name)s': '与 %(name)s 对比',
 'Compare with the draft': '与草稿对比',
 'Completed': '已完成',
 'Concurrency': '并发数',
 'Concurrency must be between 1 and 64.': '并发数必须在 1 到 64 之间。',
 'Config (JSON)': '配置（JSON）',
 'Config as JSON': '以 JSON 编辑配置',
 'Config hash': '配置哈希',
 'Config is not valid JSON: %(exc)s': '配置不是有效的 JSON：%(exc)s',
 'Config must be a JSON object.': '配置必须是 JSON 对象。',
 'Configuration': '配置',
 'Conversation': '对话',
 "Conversation cells hold the JSON array of their messages in OpenAI's chat shape (role system, user, assistant or tool; content; tool_calls and tool_call_id); in JSONL the array itself.": '对话（Conversation）单元格存放其消息的 '
                                                                                                                                                                                             'JSON '
                                                                                                                                                                                             '数组，采用 '
                                                                                                                                                                                             'OpenAI '
                                                                                                                                                                                             '的对话格式（role '
                                                                                                                                                                                             '为 '
                                                                                                                                                                                             'system、user、assistant '
                                                                                                                                                                                             '或 '
                                                                                                                                                                                             'tool；content；tool_calls '
                                                                                                                                                                                             '和 '
                                                                                                                                                                                             'tool_call_id）；在 '
                                                                                                                                                                                             'JSONL '
                                                                                                                                                                                             '中直接是数组本身。',
 'Conversation checks': '对话检查',
 'Copied': '已复制',
 'Copied as “%(name)s”.': '已复制为“%(name)s”。',
 'Copy': '复制',
 'Copy an evaluator': '复制评估器',
 'Correct a result': '修正结果',
 'Correct this result': '修正此结果',
 'Corrected by %(who)s on %(when)s:': '由 %(who)s 于 %(when)s 修正：',
 'Correction saved; the row and the dashboard show it.': '修正已保存；该行和看板都会显示它。',
 'Cost': '成本',
 'Cost and latency': '成本和延迟',
 'Cost in USD (JMESPath)': '成本（美元，JMESPath）',
 'Cost in USD (JMESPath, optional)': '成本（美元，JMESPath，可选）',
 'Could not clone: %(p)s': '无法克隆：%(p)s',
 'Could not load rows.': '无法加载行。',
 'Counts so far; the win rates, their intervals and the leaderboard are computed when the run finishes.': '目前的计数；胜率、其区间和排行榜在运行结束时计算。',
 'Create': '创建',
 'Create a link and send it to them. Opening it, they choose a username and password (or sign in with the account they have) and join this workspace with the role below. Each link works once and expires after %(days)s day.': ['创建一个链接发给对方。对方打开后设置用户名和密码（或用已有账号登录），即以下方的角色加入此工作空间。每个链接只能使用一次，%(days)s '
                                                                                                                                                                                                                                  '天后过期。'],
 'Create a pairwise run': '创建成对运行',
 'Create a token': '创建令牌',
 'Create a workspace': '创建工作空间',
 'Create account and join': '创建账号并加入',
 'Create an API token': '创建 API 令牌',
 'Create an evaluation set': '创建评测集',
 'Create an evaluator': '创建评估器',
 'Create an experiment': '创建实验',
 'Create evaluator': '创建评估器',
 'Create invitation link': '创建邀请链接',
 'Create token': '创建令牌',
 'Create your account': '创建你的账号',
 'Created': '创建于',
 'Created by': '创建人',
 'Creates a draft (201), or with `launch: true` creates and launches it in one call (202). The body names the `evalset_version` (an id or "name@version"), an optional `target` ({kind: none, prompt, http, external or rescore, ...}: what produces the outputs) and `bindings`: the evaluator versions that score each row, each {evaluator_version, mapping?, policy?, ext?}, where `mapping` sends the evaluator\'s variables to `column:<name>` or `target:actual_output` (suggested by name when left out). `repetitions` runs every row several times; `interval` overrides the workspace\'s interval settings. Nothing is created unless all of it is valid: 400 names each problem by path (e.g. `bindings[0].mapping`).': '创建草稿（201），或用 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`launch: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'true` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '在一次调用中创建并启动（202）。请求体指定 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`evalset_version`（id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '"name@version"）、可选的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`target`（{kind: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'none、prompt、http、external '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'rescore, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '...}：产生输出的方式）和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`bindings`：为每行打分的评估器版本，每个为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '{evaluator_version, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'mapping?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'policy?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    'ext?}，其中 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`mapping` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '把评估器的变量对应到 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`column:<name>` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`target:actual_output`（省略时按名称推荐）。`repetitions` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '让每行运行多次；`interval` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '覆盖工作空间的区间设置。只有全部有效时才会创建：返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '并按路径指明每个问题（例如 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    '`bindings[0].mapping`）。',
 'Creates a new draft with this experiment\'s set-up (201): an optional `name` (default: the name with "(clone)"), `versions` {evaluator id: version string} to swap evaluator versions, and `evalset_version` to run on another version. 400 names the evaluator that is not in the experiment or has no such version.': '以此实验的设置创建一个新草稿（201）：可选的 '
                                                                                                                                                                                                                                                                                                                          '`name`（默认：原名加“(clone)”）、用于替换评估器版本的 '
                                                                                                                                                                                                                                                                                                                          '`versions` '
                                                                                                                                                                                                                                                                                                                          '{评估器 '
                                                                                                                                                                                                                                                                                                                          'id: '
                                                                                                                                                                                                                                                                                                                          '版本字符串}，以及在另一个版本上运行的 '
                                                                                                                                                                                                                                                                                                                          '`evalset_version`。返回 '
                                                                                                                                                                                                                                                                                                                          '400 '
                                                                                                                                                                                                                                                                                                                          '时会指明不在实验中或没有该版本的评估器。',
 'Creates a new evaluator (201) with this one\'s draft and details, named after it with "(copy)" (numbered when taken). Versions and test cases are not copied.': '以此评估器的草稿和详情创建一个新评估器（201），名称为原名加“(copy)”（重名时加编号）。版本和测试用例不会复制。',
 "Creates a new experiment that scores this finished run's target outputs with other evaluator versions (`bindings`, as for Create an experiment) without calling the target again; it records this run as `outputs_from` and compares paired with it. Launched at once (202) unless `launch: false` (201). 400 names the problem: a run not finished or without target outputs, or a binding at fault.": '创建一个新实验，用其他评估器版本（`bindings`，与创建实验相同）为此已结束运行的评测对象输出打分，而不再调用评测对象；它将此运行记录为 '
                                                                                                                                                                                                                                                                                                                                                                                                          '`outputs_from`，并与之成对对比。立即启动（202），除非 '
                                                                                                                                                                                                                                                                                                                                                                                                          '`launch: '
                                                                                                                                                                                                                                                                                                                                                                                                          'false`（201）。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                          '400 '
                                                                                                                                                                                                                                                                                                                                                                                                          '时会指明问题：运行未结束或没有评测对象输出，或某个绑定有误。',
 'Creates a provider from `name`, `base_url` (checked against the outbound policy), `default_model`, optional call settings, `prices` ({model: {input, output}} in USD per million tokens) and an optional `api_key`, stored encrypted. Owners only. 400 names the field when the name is taken, the URL is not allowed or the prices are malformed.': '由 '
                                                                                                                                                                                                                                                                                                                                                       '`name`、`base_url`（按出站策略检查）、`default_model`、可选的调用设置、`prices`（{model: '
                                                                                                                                                                                                                                                                                                                                                       '{input, '
                                                                                                                                                                                                                                                                                                                                                       'output}}，单位为每百万 '
                                                                                                                                                                                                                                                                                                                                                       'Token '
                                                                                                                                                                                                                                                                                                                                                       '的美元价格）和可选的 '
                                                                                                                                                                                                                                                                                                                                                       '`api_key`（加密保存）创建模型服务。仅限所有者。名称已被占用、URL '
                                                                                                                                                                                                                                                                                                                                                       '不被允许或价格格式不对时返回 '
                                                                                                                                                                                                                                                                                                                                                       '400，并指明字段。',
 'Creates a set from a `name`, an optional description and tags, and `columns` ([{name, content_type: Text, Image, Audio or MultiPart, description, required}]). Its rows start as an empty draft: add them under items or import a file, then commit a version for experiments (201). 400 names the field: a name already taken, or a column with a bad name or type.': '由 '
                                                                                                                                                                                                                                                                                                                                                                         '`name`、可选的描述和标签以及 '
                                                                                                                                                                                                                                                                                                                                                                         '`columns`（[{name, '
                                                                                                                                                                                                                                                                                                                                                                         'content_type: '
                                                                                                                                                                                                                                                                                                                                                                         'Text、Image、Audio '
                                                                                                                                                                                                                                                                                                                                                                         '或 '
                                                                                                                                                                                                                                                                                                                                                                         'MultiPart, '
                                                                                                                                                                                                                                                                                                                                                                         'description, '
                                                                                                                                                                                                                                                                                                                                                                         'required}]）创建评测集。其行从空草稿开始：在 '
                                                                                                                                                                                                                                                                                                                                                                         'items '
                                                                                                                                                                                                                                                                                                                                                                         '下添加或导入文件，然后为实验提交一个版本（201）。返回 '
                                                                                                                                                                                                                                                                                                                                                                         '400 '
                                                                                                                                                                                                                                                                                                                                                                         '时会指明字段：名称已被占用，或某列的名称或类型不对。',
 'Creates a workspace with you as its only owner. `slug` (used in page URLs and in `X-Assay-Workspace`) is made from the name when left out. Needs a signed-in session: an API token acts inside its own workspace and gets 403. 400 names the field when the name is empty or the slug is taken or has no letters or digits.': '创建一个工作空间，你是其唯一的所有者。省略 '
                                                                                                                                                                                                                                                                                                                                '`slug`（用于页面 '
                                                                                                                                                                                                                                                                                                                                'URL '
                                                                                                                                                                                                                                                                                                                                '和 '
                                                                                                                                                                                                                                                                                                                                '`X-Assay-Workspace`）时，由名称生成。需要已登录的会话：API '
                                                                                                                                                                                                                                                                                                                                '令牌只在自己的工作空间内生效，会得到 '
                                                                                                                                                                                                                                                                                                                                '403。名称为空、slug '
                                                                                                                                                                                                                                                                                                                                '已被占用或不含字母和数字时返回 '
                                                                                                                                                                                                                                                                                                                                '400，并指明字段。',
 'Creates a workspace with you as its only owner. `slug` (used in page URLs and in `X-Assay-Workspace`) is made from the name when left out: numbered when taken, and a short random one (`ws-k3m9qa`) for a name without Latin letters or digits. Needs a signed-in session: an API token acts inside its own workspace and gets 403. 400 names the field when the name is empty or a given slug is taken or has no letters or digits.': '创建一个工作空间，你是其唯一的所有者。省略 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '`slug`（用于页面 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          'URL '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '`X-Assay-Workspace`）时，由名称生成：已被占用时加上编号，名称中没有拉丁字母或数字时生成一个简短的随机 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          'slug（`ws-k3m9qa`）。需要已登录的会话：API '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '令牌只在自己的工作空间内生效，会得到 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '403。名称为空、给定的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          'slug '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '已被占用或不含字母和数字时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                          '400，并指明字段。',
 'Creates an evaluator with an editable draft: blank from `kind` (llm or code, with `language` python or javascript for code), from a preset `template` (see List evaluator templates), or with a full `config`. Submit a version to use it in experiments. 400 names the field: neither kind nor template, no name without a template, an unknown template or language, a name already taken, or a config the kind refuses (named by path, e.g. `config.prompt`).': '创建一个带可编辑草稿的评估器：由 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '`kind` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '新建空白评估器（llm '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     'code；code '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '需带 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '`language`：python '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     'javascript），由预置 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '`template` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '创建（见“列出评估器模板”），或给出完整的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '`config`。提交一个版本后才能在实验中使用。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '时会指明字段：既无 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     'kind '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '也无 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     'template、没有模板时缺少名称、未知的模板或语言、名称已被占用，或该类型不接受的配置（按路径指明，例如 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '`config.prompt`）。',
 "Creates an evaluator with an editable draft: blank from `kind` (llm or code, with `language` python or javascript for code), from a preset `template` (see List evaluator templates; `prompt_locale` en or zh-hans picks a judge's prompt, default the request's language), or with a full `config`. Submit a version to use it in experiments. 400 names the field: neither kind nor template, no name without a template, an unknown template, language or prompt_locale, a name already taken, or a config the kind refuses (named by path, e.g. `config.prompt`).": '创建一个带可编辑草稿的评估器：由 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '`kind` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '新建空白评估器（llm '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'code；code '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '需带 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '`language`：python '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'javascript），由预置 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '`template` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '创建（见“列出评估器模板”；`prompt_locale` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'en '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'zh-hans，选择 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'LLM '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '评估器提示词的语言，默认为请求的语言），或给出完整的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '`config`。提交一个版本后才能在实验中使用。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '时会指明字段：既无 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'kind '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '也无 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'template、没有模板时缺少名称、未知的模板、语言或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          'prompt_locale、名称已被占用，或该类型不接受的配置（按路径指明，例如 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          '`config.prompt`）。',
 'Creating the run here instead leaves it waiting for outputs at': '如果改为在这里创建运行，它将在以下位置等待输出：',
 'Creating the run here instead leaves it waiting for outputs at <code>POST /api/v1/experiments/&lt;id&gt;/outputs/</code>.': '如果改为在这里创建运行，它会等待你向 '
                                                                                                                              '<code>POST '
                                                                                                                              '/api/v1/experiments/&lt;id&gt;/outputs/</code> '
                                                                                                                              '推送输出。',
 'Creating the run here instead leaves it waiting for outputs at <code>POST /api/v1/experiments/&lt;id&gt;/outputs/</code>; its page then shows the id and the commands.': '如果改为在这里创建运行，它会等待你向 '
                                                                                                                                                                           '<code>POST '
                                                                                                                                                                           '/api/v1/experiments/&lt;id&gt;/outputs/</code> '
                                                                                                                                                                           '推送输出；运行页面会显示其 '
                                                                                                                                                                           'ID '
                                                                                                                                                                           '和相应命令。',
 'Creator': '创建人',
 'Current policy': '当前策略',
 'Current policy:': '当前策略：',
 'Current policy: %(policy_text)s.': '当前策略：%(policy_text)s。',
 'Custom LLM judge': '自定义 LLM 评估器',
 'Custom code': '自定义代码',
 'Dashboard': '看板',
 'Debug': '调试',
 'Decided rows: pass and fail, unknown not counted': '已判定的行：通过和未通过，未知不计入',
 "Decides whether `candidate` regresses against `baseline` (an experiment id, or `latest`). For each evaluator both runs have, the paired pass/fail flips go to a one-sided McNemar test at `alpha` (default 0.05): it fails when the drop is significant and its interval lies beyond `max_drop` (default 0); when the decided→unknown flips significantly outnumber the unknown→decided ones (the same test); when the candidate's unknown rate is above `max_unknown_rate` (default 0.5); or when fewer than `min_decided` rows (default 30) were decided on both sides. It also fails when no evaluator ran in both runs. Answers `passed`, a row per evaluator with its reasons, the options used and a Markdown summary; the CLI's `assay gate` exits 1 when `passed` is false. 400 names the parameter: a run that has not completed, runs on different evalsets, no marked baseline for `latest`, or an option out of range.": '判断 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`candidate` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '相对 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`baseline`（实验 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`latest`）是否退化。对两次运行都有的每个评估器，成对的通过/未通过翻转用单侧 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'McNemar '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '检验（显著性水平 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`alpha`，默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '0.05）：以下情况判为失败：下降显著且其区间超出 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`max_drop`（默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '0）；已判定→未知的翻转显著多于未知→已判定的翻转（同一检验）；候选的未知率高于 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`max_unknown_rate`（默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '0.5）；两边都有判定的行少于 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`min_decided`（默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '30）。没有评估器在两次运行中都运行过时也判为失败。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`passed`、每个评估器一行（附原因）、所用的选项以及 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'Markdown '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '摘要；`passed` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'false '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '时 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'CLI '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '`assay '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       'gate` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '以 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '1 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '退出。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '时会指明参数：运行未完成、运行在不同的评测集上、`latest` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       '找不到标记的基线，或某个选项超出范围。',
 "Decides whether `candidate` regresses against `baseline` (an experiment id, or `latest`). For each evaluator both runs have, the paired pass/fail flips go to a one-sided McNemar test at `alpha` (default 0.05): it fails when the drop is significant and its interval lies beyond `max_drop`, or when the unknown rate is above `max_unknown_rate`. Answers `passed`, a row per evaluator with its reasons, and a Markdown summary; the CLI's `assay gate` exits 1 when `passed` is false. 400 names the parameter: a run that has not completed, runs on different evalsets, no marked baseline for `latest`, or an option out of range.": '判断 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`candidate` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '相对 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`baseline`（实验 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`latest`）是否退化。对两次运行都有的每个评估器，成对的通过/未通过翻转用单侧 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'McNemar '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '检验（显著性水平 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`alpha`，默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '0.05）：下降显著且其区间超出 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`max_drop`，或未知率高于 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`max_unknown_rate` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '时判为失败。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`passed`、每个评估器一行（附原因）以及 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'Markdown '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '摘要；`passed` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'false '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '时 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'CLI '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '`assay '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 'gate` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '以 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '1 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '退出。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '时会指明参数：运行未完成、运行在不同的评测集上、`latest` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 '找不到标记的基线，或某个选项超出范围。',
 'Default all.': '默认全部。',
 'Default model': '默认模型',
 'Default verdict policy': '默认判定策略',
 'Define a top-level function: def exec_evaluation(turn).': '请定义一个顶层函数：def exec_evaluation(turn)。',
 'Define exec_evaluation(turn) and return EvalOutput(score, reason); score in [0, 1], or None when the row does not say.': '定义 '
                                                                                                                           'exec_evaluation(turn) '
                                                                                                                           '并返回 '
                                                                                                                           'EvalOutput(score, '
                                                                                                                           'reason)；score '
                                                                                                                           '在 '
                                                                                                                           '[0, '
                                                                                                                           '1] '
                                                                                                                           '内，该行无法判断时返回 '
                                                                                                                           'None。',
 'Define function exec_evaluation(turn) (or execEvaluation).': '请定义函数 exec_evaluation(turn)（或 '
                                                               'execEvaluation）。',
 'Define function exec_evaluation(turn) and return { score, reason } (or just a number); score in [0, 1], or null when the row does not say. turn.evaluate_target_output_fields.actual_output.text is the answer.': '定义函数 '
                                                                                                                                                                                                                    'exec_evaluation(turn) '
                                                                                                                                                                                                                    '并返回 '
                                                                                                                                                                                                                    '{ '
                                                                                                                                                                                                                    'score, '
                                                                                                                                                                                                                    'reason '
                                                                                                                                                                                                                    '}（或只返回一个数字）；score '
                                                                                                                                                                                                                    '在 '
                                                                                                                                                                                                                    '[0, '
                                                                                                                                                                                                                    '1] '
                                                                                                                                                                                                                    '内，该行无法判断时返回 '
                                                                                                                                                                                                                    'null。turn.evaluate_target_output_fields.actual_output.text '
                                                                                                                                                                                                                    '是回答。',
 'Delete': '删除',
 'Delete a model provider': '删除模型服务',
 'Delete a secret': '删除密钥',
 'Delete a test case': '删除测试用例',
 'Delete an evaluation set': '删除评测集',
 'Delete an evaluator': '删除评估器',
 'Delete an item': '删除数据项',
 'Delete this evaluation set?': '删除此评测集？',
 'Delete this evaluator?': '删除此评估器？',
 'Delete this provider?': '删除此模型服务？',
 'Delete this secret? Targets that use it will fail their rows.': '删除此密钥？使用它的评测对象在每一行上都会失败。',
 'Deleted evaluators': '已删除的评估器',
 'Deleted evaluators appear here and can be restored.': '已删除的评估器会显示在这里，并可以恢复。',
 'Deletes the provider and its stored key. Owners only.': '删除该模型服务及其保存的密钥。仅限所有者。',
 'Deletes the secret. Rows of HTTP targets whose headers use it fail until a secret of that name exists again. Owners only.': '删除该密钥。请求头使用它的 '
                                                                                                                              'HTTP '
                                                                                                                              '评测对象，其行会失败，直到再次存在同名密钥。仅限所有者。',
 'Deletes the test case (204); versions keep the results they recorded.': '删除测试用例（204）；版本保留它们记录的结果。',
 'Description': '描述',
 'Diff two evaluator versions': '对比两个评估器版本',
 "Download an import's error report": '下载导入的错误报告',
 'Download the error report (CSV)': '下载错误报告（CSV）',
 'Downloads every judged pair, streamed: `format=csv` (default; cells a spreadsheet would run as formulas are quoted) or `jsonl`. 400 for another format.': '以流式下载所有已评判的配对：`format=csv`（默认；电子表格会当作公式执行的单元格会加引号）或 '
                                                                                                                                                            '`jsonl`。其他格式返回 '
                                                                                                                                                            '400。',
 "Downloads every result, streamed: `format=csv` (default) or `jsonl`, or garak's `report` (report.jsonl) or `hitlog` (hitlog.jsonl). 400 for another format.": '以流式下载所有结果：`format=csv`（默认）或 '
                                                                                                                                                                '`jsonl`，或 '
                                                                                                                                                                'garak '
                                                                                                                                                                '的 '
                                                                                                                                                                '`report`（report.jsonl）或 '
                                                                                                                                                                '`hitlog`（hitlog.jsonl）。其他格式返回 '
                                                                                                                                                                '400。',
 'Downloads the draft (default) or `version` as `format=jsonl` (default) or `csv`, streamed, one row per item with its item_id. A file exported this way imports back as new rows. 400 for another format; 404 for a version the set does not have.': '以流式下载草稿（默认）或 '
                                                                                                                                                                                                                                                      '`version`，格式为 '
                                                                                                                                                                                                                                                      '`format=jsonl`（默认）或 '
                                                                                                                                                                                                                                                      '`csv`，每个数据项一行并带 '
                                                                                                                                                                                                                                                      'item_id。以这种方式导出的文件可以作为新行再导入。其他格式返回 '
                                                                                                                                                                                                                                                      '400；评测集没有的版本返回 '
                                                                                                                                                                                                                                                      '404。',
 'Draft': '草稿',
 'Draft rows': '草稿行数',
 'Draft saved.': '草稿已保存。',
 'Duplicate variable name %(name)r.': '变量名 %(name)r 重复。',
 'ETA': '预计剩余时间',
 'Each item is an object {data, tags, human_verdict, label}.': '每个数据项都是一个对象 {data, tags, '
                                                               'human_verdict, label}。',
 'Each output is an object with item_id and actual_output.': '每个输出都是带有 item_id 和 actual_output '
                                                             '的对象。',
 'Each row is played until the simulated user writes the stop phrase or the turns run out. The chat is offered to the evaluators as “target: conversation” (Conversation) and as a transcript in “target: actual_output”; a re-run with the same seed and the same answers of your app replays it from the response cache.': '每一行都会对话下去，直到模拟用户写出结束语或轮数用完。对话以“target: '
                                                                                                                                                                                                                                                                                                                             'conversation”（Conversation）提供给评估器，其文字记录以“target: '
                                                                                                                                                                                                                                                                                                                             'actual_output”提供；使用相同种子、且你的应用回答相同的重跑会从响应缓存中重放。',
 "Each tag's interval is computed like the card's, from that tag's rows alone.": '每个标签的区间与卡片的计算方式相同，只用该标签的行。',
 'Edit': '编辑',
 'Edit a test case': '编辑测试用例',
 'Edit an evaluation set': '编辑评测集',
 "Edit an evaluator's draft": '编辑评估器草稿',
 'Edit an item': '编辑数据项',
 'Edit row': '编辑行',
 'Edit row %(n)s': '编辑第 %(n)s 行',
 'Editor': '编辑者',
 'Elapsed': '已用时间',
 'Empty, or an empty cell: the simulated user writes the first message.': '留空或单元格为空：由模拟用户写第一条消息。',
 "Empty: the provider's default model.": '留空：使用模型服务的默认模型。',
 'Encoding': '编码',
 'Endpoint URL': '端点 URL',
 'Entries': '条目',
 'Error': '错误',
 'Evalset': '评测集',
 'Evalset version': '评测集版本',
 'Evalsets': '评测集',
 'Evaluation set': '评测集',
 'Evaluation set created. Add columns, or import a file.': '评测集已创建。请添加列，或导入文件。',
 'Evaluation set version': '评测集版本',
 'Evaluation sets': '评测集',
 'Evaluator': '评估器',
 'Evaluator created. Edit the draft, then submit a version.': '评估器已创建。编辑草稿，然后提交一个版本。',
 'Evaluator version': '评估器版本',
 'Evaluator versions': '评估器版本',
 'Evaluators': '评估器',
 'Evaluators, mappings and policies': '评估器、映射和策略',
 'Evaluators: pass rate': '评估器：通过率',
 'Every difference between two versions that can change results: the score meaning, the default policy (`default_policy.kind`, `default_policy.threshold`) and the config, field by field. Each change has its `path`, a plain `label` (Threshold, System message, Model), `change` (added/removed/changed), `old` and `new` with their readable `old_text` and `new_text`, and for text a unified `diff`. `old` and `new` are version strings or `draft` (`new` defaults to the draft). 404 when either version does not exist.': '两个版本之间所有会改变结果的差异：分数含义、默认策略（`default_policy.kind`、`default_policy.threshold`）以及配置，逐字段列出。每项变更包含 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`path`、易读的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`label`（Threshold、System '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   'message、Model）、`change`（added/removed/changed）、`old` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`new` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '及其易读的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`old_text` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`new_text`，文本还有统一格式的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`diff`。`old` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`new` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '为版本号或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '`draft`（`new` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '默认为草稿）。任一版本不存在时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '404。',
 'Every pair is asked in both orders; when the answers disagree the pair counts as a tie, so a judge that favours a slot cannot make wins. Wilson score intervals over pairs.': '每个配对都按两种顺序提问；回答不一致时这一对算作平局，因此偏向某个位置的评判模型无法因此得胜。区间为按配对计算的 '
                                                                                                                                                                                'Wilson '
                                                                                                                                                                                '分数区间。',
 'Every pair is asked twice, the outputs in order and swapped. When the two answers disagree the pair counts as a tie and is flagged position-inconsistent, so a judge that favours a slot cannot make wins.': '每一对都会问两次：按原顺序一次，交换顺序一次。两次回答不一致时，这一对算作平局并标记为位置不一致，这样偏向某个位置的评判模型无法因此得胜。',
 'Every pair is judged twice, the outputs in order and swapped; orders that disagree count as a tie and are flagged position-inconsistent.': '每个配对评判两次：按原顺序一次，交换顺序一次；两种顺序结果不一致时算作平局，并标记为位置不一致。',
 "Every required variable already has a column or the target's output.": '每个必填变量都已有同名的列或评测对象的输出。',
 'Expected': '期望',
 'Expected verdict': '期望判定',
 'Expected verdict must be pass, fail or unknown.': '期望判定必须是 pass、fail 或 unknown。',
 'Experiment': '实验',
 'Experiment id': '实验 ID',
 'Experiment id.': '实验 id。',
 'Experiment ids, comma-separated or the parameter repeated.': '实验 id，用逗号分隔或重复该参数。',
 'Experiment launched.': '实验已启动。',
 'Experiments': '实验',
 'Expires': '过期时间',
 'Export': '导出',
 'Export CSV': '导出 CSV',
 'Export CSV for Excel': '导出 Excel 用 CSV',
 'Export JSONL': '导出 JSONL',
 "Export a pairwise run's pairs": '导出成对运行的配对',
 'Export an evaluation set': '导出评测集',
 "Export an experiment's results": '导出实验的结果',
 'Export draft (CSV for Excel)': '导出草稿（Excel 用 CSV）',
 'Export draft (CSV)': '导出草稿（CSV）',
 'External: your code computes the outputs and pushes them (SDK, CLI, CI)': '外部：由你的代码计算输出并推送（SDK、CLI、CI）',
 'Extracted': '提取结果',
 'Fail': '未通过',
 'Failed': '失败',
 'Field': '字段',
 'File': '文件',
 'File %(name)s (%(fmt)s, %(size)s)': '文件 %(name)s（%(fmt)s，%(size)s）',
 'File %(name)s (%(size)s)': '文件 %(name)s（%(size)s）',
 'File field': '文件字段',
 'File format': '文件格式',
 'Filter': '筛选',
 "Fit this evalset's columns": '适配此评测集的列',
 'Flips': '翻转',
 "For an experiment with an external target: up to 1,000 `outputs` per call, each {item_id, repeat?, actual_output, trajectory?, latency_ms?, tokens_in?, tokens_out?, cost?, error?}. Evaluators score the rows as their outputs arrive; the first output of a row wins (`accepted` counts new ones, `duplicates` the rest). 400 names the entry at fault, and is the answer when the experiment's target computes its own outputs or the run is not queued or running.": '用于外部评测对象的实验：每次调用最多 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '1,000 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '个 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`outputs`，每个为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '{item_id, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'repeat?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'actual_output, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'trajectory?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'latency_ms?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'tokens_in?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'tokens_out?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'cost?, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'error?}。输出到达后评估器即为该行打分；每行以第一个输出为准（`accepted` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '计新输出，`duplicates` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '计其余）。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '时会指明出错的条目；实验的评测对象自己计算输出，或运行不在排队中或运行中时也返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '400。',
 'Form': '表单',
 'Format': '格式',
 "Freezes the current draft as `version` (SemVer, greater than the latest) with an optional `change_note`, after the kind's checks (for code, a run in the sandbox). When the evaluator has test cases they run first and the version records their result in `test_result`, agreeing or not. 400 names the field: a malformed or not greater version, a deleted evaluator, or draft problems by config path.": '在通过该类型的检查后（代码评估器会在沙箱中运行一次），将当前草稿冻结为 '
                                                                                                                                                                                                                                                                                                                                                                                                                '`version`（SemVer，须大于最新版本），可附 '
                                                                                                                                                                                                                                                                                                                                                                                                                '`change_note`。评估器有测试用例时会先运行它们，版本在 '
                                                                                                                                                                                                                                                                                                                                                                                                                '`test_result` '
                                                                                                                                                                                                                                                                                                                                                                                                                '中记录结果，无论是否一致。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                '时会指明字段：版本格式不对或不够大、评估器已删除，或按配置路径指明的草稿问题。',
 "Freezes the draft's columns and rows as `version` (SemVer, greater than the latest) with an optional `note` (201); experiments run on versions, and rows are numbered from 1 in draft order. A draft of more than ASSAY_COMMIT_INLINE_ROWS rows (20,000 by default) is copied in the background: 202 with the version `committing`, `rows_copied` of `item_count`, and `poll_url` (Get an evaluation set version) until `status` is `ready`; meanwhile the draft cannot be changed and experiments cannot pin the version. 400 names the field: a version that exists, is not greater than the latest or is not SemVer, a deleted set, or a draft with a commit or an import under way.": '将草稿的列和行冻结为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`version`（SemVer，须大于最新版本），可附 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`note`（201）；实验在版本上运行，行按草稿顺序从 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '1 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '编号。草稿超过 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'ASSAY_COMMIT_INLINE_ROWS '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '行（默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '20,000）时在后台复制：返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '202，版本状态为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`committing`，附 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`rows_copied`/`item_count` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`poll_url`（获取评测集版本），直到 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`status` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`ready`；在此期间草稿不能修改，实验也不能固定该版本。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '时会指明字段：版本已存在、不大于最新版本或不是 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'SemVer、评测集已删除，或草稿正在提交或导入。',
 'From a shell or CI job, with the Python client installed (it creates the run with the set and evaluators chosen on this page):': '在 '
                                                                                                                                   'shell '
                                                                                                                                   '或 '
                                                                                                                                   'CI '
                                                                                                                                   '任务中，安装 '
                                                                                                                                   'Python '
                                                                                                                                   '客户端后运行（它会用本页所选的评测集和评估器创建运行）：',
 'From a shell or CI job, with the Python client installed:': '在 shell 或 CI 任务中，安装 Python 客户端后：',
 'From the file name': '按文件名判断',
 'Get a garak import': '获取 garak 导入',
 'Get a judged pair': '获取已评判的配对',
 'Get a model provider': '获取模型服务',
 'Get a pairwise run': '获取成对运行',
 "Get a pairwise run's statistics": '获取成对运行的统计',
 'Get a result': '获取结果',
 'Get a secret': '获取密钥',
 'Get a test case': '获取测试用例',
 'Get a workspace': '获取工作空间',
 'Get an API token': '获取 API 令牌',
 'Get an evaluation set': '获取评测集',
 'Get an evaluation set version': '获取评测集版本',
 'Get an evaluator': '获取评估器',
 'Get an evaluator template': '获取评估器模板',
 'Get an evaluator version': '获取评估器版本',
 'Get an experiment': '获取实验',
 'Get an import': '获取导入',
 'Get an item': '获取数据项',
 'Get or commit a version from a rows file': '从行文件获取或提交版本',
 'Get the default interval settings': '获取默认区间设置',
 'Give %(what)s.': '请填写%(what)s。',
 'Give a JSON object of header names and values.': '请填写由请求头名称和值组成的 JSON 对象。',
 'Give a baseline and at least one candidate.': '请给出一个基线和至少一个候选。',
 'Give a binding id, an evaluator id or an evaluator version id.': '请给出绑定 id、评估器 id 或评估器版本 id。',
 'Give a kind (llm or code) or a template.': '请给出类型（llm 或 code）或模板。',
 'Give a list of 1 to %(max_push)s outputs.': '请给出 1 到 %(max_push)s 个输出的列表。',
 'Give a name of letters, digits and _ (e.g. APP_TOKEN), at most 64.': '名称只能包含字母、数字和 _（例如 '
                                                                       'APP_TOKEN），最多 64 个字符。',
 'Give a number, e.g. 0.5.': '请填写数字，例如 0.5。',
 'Give a value of at most 8 KB.': '值最多 8 KB。',
 'Give a version such as 1.0.0, or draft (the default).': '请给出版本号（例如 1.0.0）或 draft（默认）。',
 'Give a whole number from 1 to 500.': '请填写 1 到 500 之间的整数。',
 'Give actual_output as text or a Text content object (or an error).': 'actual_output 应为文本或 Text '
                                                                       '内容对象（或给出 error）。',
 'Give an evaluator id.': '请给出评估器 id。',
 'Give an http:// or https:// URL.': '请填写 http:// 或 https:// 开头的 URL。',
 'Give an item id (a UUID).': '请给出数据项 id（UUID）。',
 'Give at most %(n)s origins.': '最多填写 %(n)s 个源。',
 'Give each origin as scheme://host[:port], at most %(n)s characters.': '请将每个源写成 '
                                                                        'scheme://host[:port]，最多 '
                                                                        '%(n)s 个字符。',
 'Give headers as an object of at most %(max_headers)s names.': '请求头应为最多 %(max_headers)s 个名称的对象。',
 'Give messages as [{role: system|user, content: text}].': '消息格式为 [{role: system|user, content: '
                                                           '文本}]。',
 'Give prices as {"model": {"input": USD per 1M tokens, "output": …}} (≤ 200 models).': '价格格式为 '
                                                                                        '{"model": '
                                                                                        '{"input": '
                                                                                        '每百万 Token '
                                                                                        '美元价格, '
                                                                                        '"output": '
                                                                                        '…}}（最多 '
                                                                                        '200 个模型）。',
 "Give the URL of your application's endpoint.": '请填写你的应用端点的 URL。',
 'Give the app as a JSON object with a "kind" (http or prompt).': '请以带 "kind"（http 或 prompt）的 JSON '
                                                                  '对象给出应用。',
 'Give the app under test: {kind: http, …} or {kind: prompt, …}.': '请给出被测应用：{kind: http, …} 或 '
                                                                   '{kind: prompt, …}。',
 "Give the app's system message (the chat follows it).": '请填写应用的系统消息（对话接在它之后）。',
 "Give the endpoint's http:// or https:// URL.": '请填写端点的 http:// 或 https:// URL。',
 'Give the new column a name.': '请为新列命名。',
 "Give the secret's value.": '请填写密钥的值。',
 "Give the simulated user's instructions (16 KB).": '请填写模拟用户的指令（最多 16 KB）。',
 'Go to the evalsets': '前往评测集',
 'Go to the evaluators': '前往评估器',
 'Goal column': '目标列',
 'Goes to': '映射到',
 "HTTP: your application's endpoint answers each row": 'HTTP：由你的应用端点回答每一行',
 'Headers': '请求头',
 'Headers (JSON object)': '请求头（JSON 对象）',
 'How many times the judge sees each pair (both orders each time).': '评判模型看到每个配对的次数（每次都按两种顺序）。',
 'How to read P(best): the ranking was redone many times, each time on rows drawn again at random, and P(best) is how often the experiment came first. The rank follows the strength, yet P(best) need not fall with the rank: a steady second place rarely becomes first, while a less certain experiment ranked below it may come first in a few redraws.': '如何理解最优概率：排名在每次随机重新抽取的行上重复计算了很多次，最优概率就是该实验排在第一的次数占比。排名按实力值排列，但最优概率不一定随排名下降：稳定的第二名很少成为第一，而排在它后面、把握更小的实验可能在几次重抽中排到第一。',
 'Human verdict': '人工判定',
 'Ignore': '忽略',
 'Image': '图片',
 "Image and Audio cells hold an http(s) URL, or the path of a file uploaded to this workspace (upload media through the API's /evalsets/media/ endpoint or the row editor). MultiPart cells hold JSON.": '图片和音频单元格存放 '
                                                                                                                                                                                                         'http(s) '
                                                                                                                                                                                                         'URL，或上传到此工作空间的文件路径（通过 '
                                                                                                                                                                                                         'API '
                                                                                                                                                                                                         '的 '
                                                                                                                                                                                                         '/evalsets/media/ '
                                                                                                                                                                                                         '端点或行编辑器上传媒体）。多模态（MultiPart）单元格存放 '
                                                                                                                                                                                                         'JSON。',
 'Import': '导入',
 'Import a CSV or JSONL file, or define the columns by hand.': '导入 CSV 或 JSONL 文件，或手动定义列。',
 'Import a file': '导入文件',
 'Import a file into an evaluation set': '向评测集导入文件',
 'Import a garak scan': '导入 garak 扫描',
 'Import a report cut short as partial': '将被截断的报告作为部分导入',
 'Import again, skipping the bad rows': '再次导入，跳过错误行',
 'Import garak': '导入 garak',
 'Imported %(n)d run(s) of garak; the workers are scoring them.': '已导入 %(n)d 个 garak '
                                                                  '运行；工作进程正在为它们打分。',
 'Input': '输入',
 'Input tokens (JMESPath)': '输入 Token 数（JMESPath）',
 'Input tokens (JMESPath, optional)': '输入 Token 数（JMESPath，可选）',
 'Input variable %(n)d': '输入变量 %(n)d',
 'Input variables': '输入变量',
 'Inputs': '输入',
 'Inputs and reference': '输入和参考',
 'Inputs:': '输入：',
 'Inputs: %(inputs)s': '输入：%(inputs)s',
 'Insert at cursor': '插入到光标处',
 'Instructions, turns, stop phrase and seed': '指令、轮数、结束语和种子',
 'Interval': '区间',
 "Interval corrected for the detector's error (Se %(se)s, Sp %(sp)s, from garak's detector metrics).": '区间已按检测器自身的误差校正（灵敏度 '
                                                                                                       '%(se)s，特异度 '
                                                                                                       '%(sp)s，来自 '
                                                                                                       'garak '
                                                                                                       '的检测器指标）。',
 "Interval corrected for the judge's own error (Se %(se)s, Sp %(sp)s, from a calibration on %(n)s labelled rows).": '区间已按评判模型自身的误差校正（灵敏度 '
                                                                                                                    '%(se)s，特异度 '
                                                                                                                    '%(sp)s，来自对 '
                                                                                                                    '%(n)s '
                                                                                                                    '个已标注行的校准）。',
 'Intervals above resample rows with all their repetitions together (clustered by row), so repeating a row does not narrow them as new rows would.': '上面的区间把一行及其所有重复一起重采样（按行聚类），因此重复某一行不会像新增行那样缩窄区间。',
 "Intervals: %(c)s percentile bootstrap over items, %(b)s resamples, none below n = %(m)s. The sign test counts B's wins against A's, ties left out.": '区间：按数据项的 '
                                                                                                                                                       '%(c)s '
                                                                                                                                                       '百分位 '
                                                                                                                                                       'bootstrap，重采样 '
                                                                                                                                                       '%(b)s '
                                                                                                                                                       '次，n '
                                                                                                                                                       '低于 '
                                                                                                                                                       '%(m)s '
                                                                                                                                                       '时没有区间。符号检验比较 '
                                                                                                                                                       'B '
                                                                                                                                                       '与 '
                                                                                                                                                       'A '
                                                                                                                                                       '的获胜次数，不计平局。',
 'Invalid or revoked API token.': 'API 令牌无效或已被吊销。',
 'Invitation': '邀请',
 'Invitation link — copy it now and send it to your colleague; it will not be shown again:': '邀请链接——请立即复制并发给你的同事，之后不会再显示：',
 'Invitation withdrawn: its link no longer works.': '邀请已撤回：其链接不再有效。',
 'Invite a colleague': '邀请同事',
 'Issues a token named `name` that acts as you, with your role, in this workspace only. The response carries the `key` once: store it now, only its hash is kept. Send it as `Authorization: Bearer <key>` (or `Token <key>`). Any member may create one; 400 when the name is empty.': '签发一个名为 '
                                                                                                                                                                                                                                                                                        '`name` '
                                                                                                                                                                                                                                                                                        '的令牌，它以你的身份和角色、仅在此工作空间内生效。响应中只出现一次 '
                                                                                                                                                                                                                                                                                        '`key`：请立即保存，服务端只保留其哈希。以 '
                                                                                                                                                                                                                                                                                        '`Authorization: '
                                                                                                                                                                                                                                                                                        'Bearer '
                                                                                                                                                                                                                                                                                        '<key>`（或 '
                                                                                                                                                                                                                                                                                        '`Token '
                                                                                                                                                                                                                                                                                        '<key>`）发送。任何成员都可以创建；名称为空时返回 '
                                                                                                                                                                                                                                                                                        '400。',
 'It creates a new run with this set and these evaluators, calls your function on every row and pushes the outputs itself:': '它会用这个评测集和这些评估器创建新的运行，对每一行调用你的函数，并自动推送输出：',
 'It works once, for %(days)s day, and gives the role you chose.': ['只能使用一次，%(days)s '
                                                                    '天内有效，加入后获得你选择的角色。'],
 'Item id': '数据项 ID',
 'Item id.': '数据项 id。',
 'JSON mode': 'JSON 模式',
 'Join %(name)s': '加入 %(name)s',
 'Join the workspace': '加入工作空间',
 'Judge': '评判模型',
 'Judge against the baseline (B)': '与基线对比评判（B）',
 'Judge calibration against human verdicts (n = %(n)s)': '评判模型与人工判定的校准（n = %(n)s）',
 'Judge pairwise': '成对评判',
 'Judge these outputs pairwise': '成对评判这些输出',
 'Judge two or more finished experiments of one evalset against each other: win rates with intervals, and a leaderboard for three or more.': '让同一评测集上两个或更多已结束的实验相互评判：给出胜率及区间，三个或更多时还有排行榜。',
 'Judged pairs': '已评判的配对',
 'Judges again the pairs that errored or timed out (and any never written), into the same run (202); `retried` says how many. 400 while the run goes on, or when there is nothing to retry.': '在同一运行中重新评判出错或超时的配对（以及从未写入的配对）（202）；`retried` '
                                                                                                                                                                                              '表示数量。运行仍在进行或没有可重试的内容时返回 '
                                                                                                                                                                                              '400。',
 'Judges two to eight finished experiments of one evalset (any versions of it: rows pair by item id) with a pairwise judge, every pair of experiments on every item they share, each pair in both orders; the first experiment is the baseline, A. Launched at once (202). Nothing is created unless all of it is valid: 400 names each problem by place (`experiments[1]`, `evaluator_version`, `mapping`).': '用成对评估器评判同一评测集（可为其任意版本：行按数据项 '
                                                                                                                                                                                                                                                                                                                                                                                                               'id '
                                                                                                                                                                                                                                                                                                                                                                                                               '配对）上 '
                                                                                                                                                                                                                                                                                                                                                                                                               '2 '
                                                                                                                                                                                                                                                                                                                                                                                                               '到 '
                                                                                                                                                                                                                                                                                                                                                                                                               '8 '
                                                                                                                                                                                                                                                                                                                                                                                                               '个已结束的实验：每两个实验在它们共有的每个数据项上配对，每对按两种顺序评判；第一个实验是基线 '
                                                                                                                                                                                                                                                                                                                                                                                                               'A。立即启动（202）。只有全部有效时才会创建：返回 '
                                                                                                                                                                                                                                                                                                                                                                                                               '400 '
                                                                                                                                                                                                                                                                                                                                                                                                               '并按位置指明每个问题（`experiments[1]`、`evaluator_version`、`mapping`）。',
 'Judging %(n)d failed pairs again.': '正在重新评判 %(n)d 个失败的配对。',
 'Keep this turn as a test case': '把这个轮次保存为测试用例',
 'Kind': '类型',
 'LLM evaluators': 'LLM 评估器',
 'LLM judge': 'LLM 评估器',
 'Label': '标注',
 'Language': '语言',
 'Language (code only)': '语言（仅代码）',
 'Last used': '最近使用',
 'Latency p50 / p95 / max': '延迟 p50 / p95 / 最大',
 'Latest': '最新',
 'Latest imports': '最近的导入',
 'Latest version': '最新版本',
 'Launch': '启动',
 'Launch an experiment': '启动实验',
 'Launch the experiment to fill this table.': '启动实验以填充此表。',
 'Leaderboard': '排行榜',
 'Letters, digits and _; HTTP targets use it as {{secrets.NAME}} in headers.': '字母、数字和 _；HTTP '
                                                                               '评测对象在请求头中以 '
                                                                               '{{secrets.NAME}} '
                                                                               '使用它。',
 'Limit': '限流',
 'Limits: a file of up to %(mb)s MB, a text cell of up to %(kb)s KB, a header of up to %(n)s fields and %(hkb)s KB.': '限制：文件最大 '
                                                                                                                      '%(mb)s '
                                                                                                                      'MB，文本单元格最大 '
                                                                                                                      '%(kb)s '
                                                                                                                      'KB，表头最多 '
                                                                                                                      '%(n)s '
                                                                                                                      '个字段、%(hkb)s '
                                                                                                                      'KB。',
 'Line': '行号',
 'Line %(line)s is not a garak eval entry: its counts are not whole numbers.': '第 %(line)s 行不是 '
                                                                               'garak 的 eval '
                                                                               '条目：其计数不是整数。',
 "Line %(line)s, garak's setup entry: %(problems)s": '第 %(line)s 行，garak 的 setup 条目：%(problems)s',
 "Line %(line)s: garak's eval entry for %(probe)s / %(detector)s counts %(counted)s outputs, but the report's attempts hold %(held)s scores for it: lines are missing or were edited.": '第 '
                                                                                                                                                                                        '%(line)s '
                                                                                                                                                                                        '行：garak '
                                                                                                                                                                                        '对 '
                                                                                                                                                                                        '%(probe)s '
                                                                                                                                                                                        '/ '
                                                                                                                                                                                        '%(detector)s '
                                                                                                                                                                                        '的 '
                                                                                                                                                                                        'eval '
                                                                                                                                                                                        '条目计有 '
                                                                                                                                                                                        '%(counted)s '
                                                                                                                                                                                        '个输出，但报告的尝试中对应的分数有 '
                                                                                                                                                                                        '%(held)s '
                                                                                                                                                                                        '个：有行缺失或被编辑过。',
 'Line %(number)s is nested too deeply to be a garak entry.': '第 %(number)s 行嵌套过深，不可能是 garak 条目。',
 'Line %(number)s is not JSON.': '第 %(number)s 行不是 JSON。',
 'Line %(number)s is not a JSON object.': '第 %(number)s 行不是 JSON 对象。',
 'Line %(number)s is not a garak attempt: %(problem)s': '第 %(number)s 行不是 garak 尝试：%(problem)s',
 "List a pairwise run's pairs": '列出成对运行的配对',
 "List an evaluation set's imports": '列出评测集的导入',
 "List an evaluation set's items": '列出评测集的数据项',
 "List an evaluation set's versions": '列出评测集的版本',
 "List an evaluator's test cases": '列出评估器的测试用例',
 "List an evaluator's versions": '列出评估器的版本',
 "List an experiment's results": '列出实验的结果',
 "List an experiment's results by item": '按数据项列出实验的结果',
 'List evaluation sets': '列出评测集',
 'List evaluator templates': '列出评估器模板',
 'List evaluators': '列出评估器',
 'List experiments': '列出实验',
 'List garak imports': '列出 garak 导入',
 'List garak reference files': '列出 garak 参考文件',
 'List members': '列出成员',
 'List model providers': '列出模型服务',
 'List pairwise runs': '列出成对运行',
 'List secrets': '列出密钥',
 'List your API tokens': '列出你的 API 令牌',
 'List your workspaces': '列出你的工作空间',
 'Load rows': '加载行',
 'Main': '主导航',
 'Many answers changed when the two outputs swapped places, and %(f)s of those favoured the output shown first.': '交换两个输出的位置后，许多回答随之改变，其中 '
                                                                                                                  '%(f)s '
                                                                                                                  '偏向先展示的输出。',
 'Many answers changed when the two outputs swapped places, and %(f)s of those favoured the output shown second.': '交换两个输出的位置后，许多回答随之改变，其中 '
                                                                                                                   '%(f)s '
                                                                                                                   '偏向后展示的输出。',
 'Map columns': '映射列',
 "Map the file's fields onto the set's columns": '将文件的字段映射到评测集的列',
 'Mapping': '映射',
 'Mark a run as a baseline': '将运行标记为基线',
 'Mark as baseline': '标记为基线',
 'Marked as a baseline.': '已标记为基线。',
 "Marks (`is_baseline: true`) or unmarks this run as a baseline for the CI gate; `baseline=latest` in Check the CI gate takes the newest marked run on the candidate's evalset. 400 when marking a run that has not completed.": '将此运行标记（`is_baseline: '
                                                                                                                                                                                                                                 'true`）或取消标记为 '
                                                                                                                                                                                                                                 'CI '
                                                                                                                                                                                                                                 '门禁的基线；“检查 '
                                                                                                                                                                                                                                 'CI '
                                                                                                                                                                                                                                 '门禁”中的 '
                                                                                                                                                                                                                                 '`baseline=latest` '
                                                                                                                                                                                                                                 '取候选运行所在评测集上最新标记的运行。标记未完成的运行时返回 '
                                                                                                                                                                                                                                 '400。',
 'Max output tokens': '最大输出 Token 数',
 'Max retries': '最大重试次数',
 'Max tokens': '最大 Token 数',
 'Maximum score': '最高分',
 'McNemar p': 'McNemar p',
 'Mean score': '平均分',
 'Mean turn score': '轮次平均分',
 'Member added.': '成员已添加。',
 'Members': '成员',
 'Memory (MB)': '内存（MB）',
 'Memory limit (MB)': '内存限制（MB）',
 'Menu': '菜单',
 'Message %(n)d': '消息 %(n)d',
 'Messages': '消息',
 'Method': '方法',
 'Minimum score': '最低分',
 'Model': '模型',
 'Model provider': '模型服务',
 'Model providers': '模型服务',
 'Model settings': '模型设置',
 'Model:': '模型：',
 'Models': '模型',
 'Models:': '模型：',
 'More than %(n)s row': ['超过 %(n)s 行'],
 'More than %(rows)s row': ['超过 %(rows)s 行'],
 'MultiPart': '多模态',
 'MultiPart content needs a list of contents.': 'MultiPart 内容需要一个内容列表。',
 'MultiPart parts cannot be MultiPart themselves': 'MultiPart 的部分本身不能是 MultiPart',
 'Must be a %(what)s.': '必须是%(what)s。',
 'Must be a list of Conversation variable names.': '必须是 Conversation 变量名的列表。',
 'Must be a list.': '必须是列表。',
 'Must be a non-empty list of messages.': '必须是非空的消息列表。',
 'Must be a non-empty string or a non-empty list of parts.': '必须是非空字符串或非空的片段列表。',
 'Must be a number greater than 0 and at most 1.': '必须是大于 0 且不超过 1 的数字。',
 'Must be a string or null.': '必须是字符串或 null。',
 'Must be a string.': '必须是字符串。',
 'Must be an identifier: a letter or _, then up to 63 of A-Z a-z 0-9 _.': '必须是标识符：以字母或 _ 开头，后接最多 '
                                                                          '63 个 A-Z a-z 0-9 _ 字符。',
 'Must be an object of name → content.': '必须是“名称 → 内容”形式的对象。',
 'Must be an object with a type.': '必须是带有 type 的对象。',
 'Must be an object with name and content_type.': '必须是带有 name 和 content_type 的对象。',
 'Must be an object with role and content.': '必须是带有 role 和 content 的对象。',
 'Must be an object.': '必须是对象。',
 'Must be true or false.': '必须是 true 或 false。',
 'Must name a declared Conversation variable, or be null.': '必须是已声明的 Conversation 变量名，或为 null。',
 'Must name a declared variable.': '必须是已声明的变量名。',
 'Must not be empty.': '不能为空。',
 'Name': '名称',
 'Name A–Z': '名称 A–Z',
 'Name Z–A': '名称 Z–A',
 'Name a Text column of the evalset.': '请指定评测集的一个 Text 列。',
 'Name and evalset version': '名称和评测集版本',
 'Name of the new column': '新列的名称',
 'Name the Conversation to score turn by turn: one of %(sources)s.': '请指定要逐轮打分的 '
                                                                     'Conversation：%(sources)s 之一。',
 'Name the column of the scenario.': '请指定场景所在的列。',
 'Names are at most %(max_name)s characters.': '名称最多 %(max_name)s 个字符。',
 'Names start with a letter or _, then letters, digits or _. Evaluator variables map onto columns by name. Renaming a column renames it in every draft row; committed versions keep their own columns.': '名称以字母或 '
                                                                                                                                                                                                         '_ '
                                                                                                                                                                                                         '开头，后接字母、数字或 '
                                                                                                                                                                                                         '_。评估器变量按名称映射到列。重命名列会在草稿的每一行中重命名它；已提交的版本保留各自的列。',
 'Need a mapping': '需要映射',
 'Needs tool results': '需要工具结果',
 'Neither run scored this item.': '两次运行都没有为这个数据项打分。',
 'New column': '新列',
 'New column %(name)r cannot be required: existing rows have no value for it.': '新列 %(name)r '
                                                                                '不能设为必填：已有的行在这一列上没有值。',
 'New column: name and type': '新列：名称和类型',
 'New columns': '新列',
 'New evaluation set': '新建评测集',
 'New evaluator': '新建评估器',
 'New experiment': '新建实验',
 'New pairwise run': '新建成对运行',
 'New provider': '新建模型服务',
 'New workspace': '新建工作空间',
 'Next': '下一页',
 "Next you import a CSV or JSONL file (its columns become the set's columns), or define columns by hand.": '接下来导入 '
                                                                                                           'CSV '
                                                                                                           '或 '
                                                                                                           'JSONL '
                                                                                                           '文件（其列会成为评测集的列），或手动定义列。',
 'No columns yet': '还没有列',
 'No completed experiments yet.': '还没有已完成的实验。',
 'No completed run on this evalset is marked as a baseline.': '此评测集上没有被标记为基线的已完成运行。',
 'No detectable difference': '未检测到显著差异',
 'No differences between %(old)s and %(new)s.': '%(old)s 与 %(new)s 之间没有差异。',
 'No draft item %(missing)r in this set.': '此评测集的草稿中没有数据项 %(missing)r。',
 'No evaluation set is named %(name)r.': '没有名为 %(name)r 的评测集。',
 'No evaluation set matches': '没有匹配的评测集',
 'No evaluation sets yet': '还没有评测集',
 'No evaluator matches': '没有匹配的评估器',
 'No evaluators yet': '还没有评估器',
 'No evaluators.': '没有评估器。',
 'No experiment has this status': '没有处于此状态的实验',
 'No experiments yet': '还没有实验',
 'No field goes to a column yet: every row would be empty.': '还没有字段映射到列：每一行都会是空的。',
 'No file was uploaded.': '没有上传文件。',
 'No longer a baseline.': '已取消基线标记。',
 'No model providers yet': '还没有模型服务',
 "No other completed run on the baseline's evalset.": '基线所在评测集上没有其他已完成的运行。',
 'No pairs match.': '没有匹配的配对。',
 'No pairwise judge yet': '还没有成对评估器',
 'No pairwise runs yet': '还没有成对运行',
 'No results yet.': '还没有结果。',
 'No row matches': '没有匹配的行',
 'No row matches.': '没有匹配的行。',
 'No rows match.': '没有匹配的行。',
 'No rows yet': '还没有行',
 'No scored attempts: is this a garak report.jsonl?': '没有已打分的尝试：这是 garak 的 report.jsonl 吗？',
 'No scores to plot.': '没有可绘制的分数。',
 'No secrets yet': '还没有密钥',
 "No single threshold gives garak's eval counts.": '没有任何一个阈值能得到 garak 的 eval 计数。',
 'No submitted evaluator version yet.': '还没有已提交的评估器版本。',
 'No such evalset version in this workspace.': '此工作空间中没有这个评测集版本。',
 'No such evalset version in this workspace: %(public_id)r (give its id, or name@version).': '此工作空间中没有这个评测集版本：%(public_id)r（请给出其 '
                                                                                             'id，或 '
                                                                                             'name@version）。',
 'No such evaluation set': '没有这个评测集',
 'No such evaluator version in this workspace.': '此工作空间中没有这个评估器版本。',
 'No such experiment in this workspace.': '此工作空间中没有这个实验。',
 'No such export': '没有这个导出',
 'No such file': '没有这个文件',
 'No such result': '没有这个结果',
 'No such row in this evalset version.': '此评测集版本中没有这一行。',
 'No such row in this experiment': '此实验中没有这一行',
 'No such workspace': '没有这个工作空间',
 'No test cases yet. Run a turn, then keep it with the verdict you expect.': '还没有测试用例。先运行一个轮次，再连同你期望的判定把它保存下来。',
 'No usable model provider is configured for this evaluator.': '此评估器没有配置可用的模型服务。',
 'No user named %(username)r.': '没有名为 %(username)r 的用户。',
 'No version yet. Experiments run submitted versions only.': '还没有版本。实验只运行已提交的版本。',
 'No versions yet': '还没有版本',
 'No worker is running.': '没有正在运行的工作进程。',
 'No workspace secret named %(n)r (add it in Settings → Secrets).': '工作空间中没有名为 %(n)r 的密钥（请在“设置 → '
                                                                    '密钥”中添加）。',
 'No workspace selected.': '未选择工作空间。',
 'None, or an empty cell: the simulated user writes the first message.': '选“无”或单元格为空：由模拟用户写第一条消息。',
 'None: the outputs are already in a column': '无：输出已在某一列中',
 'Not compared (on one side only): %(names)s.': '未对比（仅在一边出现）：%(names)s。',
 'Not enough history: %(n)s earlier run here; relative standing needs three.': ['历史不足：此前这里只有 %(n)s '
                                                                                '次运行，相对排名至少需要三次。'],
 'Not enough history: %(n)s run of this evaluator here; a trend needs two.': ['历史不足：这里此评估器只有 %(n)s '
                                                                              '次运行，趋势至少需要两次。'],
 'Not in both runs': '不在两次运行中',
 'Not in both runs:': '不在两次运行中：',
 'Not judged (unknown) when it has no tool results:': '没有工具结果时不评判（未知）：',
 'Not scored yet.': '尚未打分。',
 'Not valid JSON: %(error)s': '不是有效的 JSON：%(error)s',
 'Note': '备注',
 'Nothing deleted': '没有已删除的内容',
 'Nothing to compare yet': '还没有可对比的内容',
 'Nothing to pair yet': '还没有可配对的内容',
 'Nothing to review yet.': '还没有可检查的内容。',
 'Nothing was imported: %(n)s problem found. Fix it, or import again with “skip bad rows”.': ['没有导入任何内容：发现 '
                                                                                              '%(n)s '
                                                                                              '个问题。请修正后重试，或勾选“跳过错误行”再次导入。'],
 'Nothing was imported: %(n)s problems found. Fix them, or import again with “skip bad rows”.': '没有导入任何内容：发现 '
                                                                                                '%(n)s '
                                                                                                '个问题。请修正后重试，或勾选“跳过错误行”再次导入。',
 'Nothing was saved:': '未保存任何内容：',
 'Of those, favouring the output shown first': '其中偏向先展示的输出的比例',
 'One evaluator with its draft `config`, whether the draft differs from the latest version (`draft_changed`) and `latest_version`. A deleted evaluator stays readable (`deleted: true`) because experiments may use its versions.': '一个评估器及其草稿 '
                                                                                                                                                                                                                                    '`config`、草稿是否与最新版本不同（`draft_changed`）和 '
                                                                                                                                                                                                                                    '`latest_version`。已删除的评估器仍可读取（`deleted: '
                                                                                                                                                                                                                                    'true`），因为实验可能在使用它的版本。',
 "One experiment with its target (secrets never shown), its bindings with each evaluator's pass rate and interval, result counts, progress with throughput and ETA, and chunk counts. Poll it while the run goes on.": '一个实验及其评测对象（从不显示密钥）、绑定（附每个评估器的通过率和区间）、结果计数、进度（含吞吐量和预计剩余时间）以及分块计数。运行期间可轮询它。',
 "One garak import, to poll after Import a garak scan: `status`, `probes_done` of `probes_total` and `percent`, `experiments` (each probe's run, with its own status), `notes` (how the threshold was read; a partial run's note) and `message` (why a failed import stopped).": '一个 '
                                                                                                                                                                                                                                                                                 'garak '
                                                                                                                                                                                                                                                                                 '导入，在“导入 '
                                                                                                                                                                                                                                                                                 'garak '
                                                                                                                                                                                                                                                                                 '扫描”之后轮询：`status`、`probes_done` '
                                                                                                                                                                                                                                                                                 '/ '
                                                                                                                                                                                                                                                                                 '`probes_total` '
                                                                                                                                                                                                                                                                                 '和 '
                                                                                                                                                                                                                                                                                 '`percent`、`experiments`（每个探针的运行及其自身状态）、`notes`（阈值是如何读出的；部分运行的说明）以及 '
                                                                                                                                                                                                                                                                                 '`message`（失败的导入为何停止）。',
 "One import's status (queued, running, completed or failed), progress (rows done, imported and failed, percent), a message, and its first 100 problems by line and column.": '一次导入的状态（排队中、运行中、已完成或失败）、进度（已处理、已导入和失败的行数及百分比）、一条消息，以及按行和列列出的前 '
                                                                                                                                                                              '100 '
                                                                                                                                                                              '个问题。',
 'One item of a comparison, side by side': '对比中的一个数据项，并排显示',
 "One of your tokens, without its key. 404 for another member's token or one of another workspace.": '你的某个令牌，不含密钥。其他成员的令牌或其他工作空间的令牌返回 '
                                                                                                     '404。',
 "One pair by its `id` in this run, with the judge's turn, both rendered requests and both raw answers. 404 when the id is not this run's.": '按 '
                                                                                                                                             '`id` '
                                                                                                                                             '获取此运行中的一个配对，附带评判模型的轮次、两次渲染后的请求和两次原始回答。id '
                                                                                                                                             '不属于此运行时返回 '
                                                                                                                                             '404。',
 "One pairwise run with its experiments in order, progress, and the statistics stored when it finished: per pair of experiments B's win rate over A (ties split and ties excluded, each with its interval and sign test), the judge's position bias, and with three or more experiments the Bradley–Terry leaderboard.": '一个成对运行，附带按顺序排列的实验、进度以及结束时保存的统计：每对实验中 '
                                                                                                                                                                                                                                                                                                                         'B '
                                                                                                                                                                                                                                                                                                                         '相对 '
                                                                                                                                                                                                                                                                                                                         'A '
                                                                                                                                                                                                                                                                                                                         '的胜率（平局平分和排除平局两种，各附区间和符号检验）、评判模型的位置偏差；有三个或更多实验时还有 '
                                                                                                                                                                                                                                                                                                                         'Bradley–Terry '
                                                                                                                                                                                                                                                                                                                         '排行榜。',
 'One per line, scheme://host[:port]. HTTP targets may send the secret only to these; with none it is sent nowhere.': '每行一个，格式为 '
                                                                                                                      'scheme://host[:port]。HTTP '
                                                                                                                      '评测对象只能把密钥发送到这些源；没有则不发送到任何地方。',
 'One provider with its settings; the API key is never returned.': '一个模型服务及其设置；从不返回 API 密钥。',
 "One result by its `id` in this experiment, with the exact input the evaluator received, its stdout, the rendered judge request and the raw answer. 404 when the id is not this experiment's.": '按 '
                                                                                                                                                                                                 '`id` '
                                                                                                                                                                                                 '获取此实验中的一个结果，附带评估器收到的确切输入、其 '
                                                                                                                                                                                                 'stdout、渲染后的评判请求和原始回答。id '
                                                                                                                                                                                                 '不属于此实验时返回 '
                                                                                                                                                                                                 '404。',
 'One row compared': '对比一行',
 'One row of the draft, or of a committed `version`; 404 when it is not there.': '草稿或某个已提交 '
                                                                                 '`version` '
                                                                                 '中的一行；不存在时返回 404。',
 'One row per item, evaluator and repetition, in row order, paginated; readable while the run goes on. Filters: `evaluator` (an evaluator, evaluator version or binding id), `verdict` (pass, fail or unknown: the corrected verdict where there is one), `status` (success, error, timeout or skipped), `tag`, `q` (text in the reason or error), `score_min` and `score_max`. 400 names a filter that cannot match.': '每个数据项、评估器和重复各一行，按行顺序分页；运行期间即可读取。筛选：`evaluator`（评估器、评估器版本或绑定的 '
                                                                                                                                                                                                                                                                                                                                                                                                                        'id）、`verdict`（pass、fail '
                                                                                                                                                                                                                                                                                                                                                                                                                        '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                        'unknown：有人工修正时取修正后的判定）、`status`（success、error、timeout '
                                                                                                                                                                                                                                                                                                                                                                                                                        '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                        'skipped）、`tag`、`q`（理由或错误中的文字）、`score_min` '
                                                                                                                                                                                                                                                                                                                                                                                                                        '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                        '`score_max`。某个筛选条件不可能匹配时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                        '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                        '并指明它。',
 "One row per item, pair of experiments and repetition, in row order, paginated: the outcome, whether the two orders disagreed, both answers and reasons. Filters: `outcome` (A, B, tie or unknown), `inconsistent` (true or false), `pair` (<A's id>:<B's id>), `status` and `q` (text in a reason or error). 400 names a filter that cannot match.": '每个数据项、实验配对和重复各一行，按行顺序分页：结果、两种顺序是否不一致、两次回答及理由。筛选：`outcome`（A、B、tie '
                                                                                                                                                                                                                                                                                                                                                       '或 '
                                                                                                                                                                                                                                                                                                                                                       'unknown）、`inconsistent`（true '
                                                                                                                                                                                                                                                                                                                                                       '或 '
                                                                                                                                                                                                                                                                                                                                                       'false）、`pair`（<A '
                                                                                                                                                                                                                                                                                                                                                       '的 '
                                                                                                                                                                                                                                                                                                                                                       'id>:<B '
                                                                                                                                                                                                                                                                                                                                                       '的 '
                                                                                                                                                                                                                                                                                                                                                       'id>）、`status` '
                                                                                                                                                                                                                                                                                                                                                       '和 '
                                                                                                                                                                                                                                                                                                                                                       '`q`（理由或错误中的文字）。某个筛选条件不可能匹配时返回 '
                                                                                                                                                                                                                                                                                                                                                       '400 '
                                                                                                                                                                                                                                                                                                                                                       '并指明它。',
 'One row per item. Verdict, status and score filters apply to the chosen evaluator (any evaluator when none is chosen); sorting by an evaluator lists the rows it scored.': '每个数据项一行。判定、状态和分数筛选作用于所选评估器（未选择时为任意评估器）；按某个评估器排序时，列出它打过分的行。',
 "One secret's name, hint and dates; the value is never returned.": '一个密钥的名称、提示和时间；从不返回值本身。',
 "One secret's name, origins, hint and dates; the value is never returned.": '一个密钥的名称、源、提示和时间；从不返回值本身。',
 'One set with its columns, draft row count, whether the draft changed since the latest version, and that version. 404 for a deleted set.': '一个评测集及其列、草稿行数、草稿自最新版本以来是否有改动，以及该版本。已删除的评测集返回 '
                                                                                                                                            '404。',
 'One template by its slug; 404 for a slug the catalogue does not have.': '按 slug 获取一个模板；目录中没有的 '
                                                                          'slug 返回 404。',
 'One test case of the evaluator; 404 when it belongs to another one.': '评估器的一个测试用例；属于另一个评估器时返回 '
                                                                        '404。',
 'One verdict per assistant turn': '每个助手轮次一个判定',
 'One verdict per repetition': '每次重复一个判定',
 "One version by its SemVer string (e.g. 1.0.0); 404 for a version the set does not have. List its rows with List an evaluation set's items and `version`.": '按 '
                                                                                                                                                             'SemVer '
                                                                                                                                                             '字符串（例如 '
                                                                                                                                                             '1.0.0）获取一个版本；评测集没有的版本返回 '
                                                                                                                                                             '404。用“列出评测集的数据项”并带上 '
                                                                                                                                                             '`version` '
                                                                                                                                                             '列出其行。',
 'One version by its SemVer string (e.g. 1.2.0) with its frozen config and test result. 404 for a version the evaluator does not have.': '按 '
                                                                                                                                         'SemVer '
                                                                                                                                         '字符串（例如 '
                                                                                                                                         '1.2.0）获取一个版本及其冻结的配置和测试结果。评估器没有的版本返回 '
                                                                                                                                         '404。',
 "One workspace by its slug, with your role in it. 404 when you are not a member (with an API token: when it is not the token's workspace).": '按 '
                                                                                                                                              'slug '
                                                                                                                                              '获取一个工作空间及你在其中的角色。你不是其成员时返回 '
                                                                                                                                              '404（使用 '
                                                                                                                                              'API '
                                                                                                                                              '令牌时：不是该令牌的工作空间时）。',
 'Only a completed run can be a baseline.': '只有已完成的运行才能作为基线。',
 'Only a draft can be launched (this one is %(status)s).': '只有草稿可以启动（此实验处于 %(status)s 状态）。',
 'Only an import that failed on bad rows can be retried.': '只有因错误行而失败的导入才能重试。',
 'Only experiments on one evalset can be paired (any versions of it).': '只有同一评测集（可为其任意版本）上的实验才能配对。',
 'Only experiments on one evalset can be paired (any versions of it: rows pair by item id). Only finished experiments with target outputs are offered.': '只有同一评测集（可为其任意版本：行按数据项 '
                                                                                                                                                         'id '
                                                                                                                                                         '配对）上的实验才能配对。只提供有评测对象输出的已结束实验。',
 'Only owners can change model providers.': '只有所有者可以修改模型服务。',
 'Only owners can rename a workspace.': '只有所有者可以重命名工作空间。',
 'Only rows with this item tag.': '只显示带此数据项标签的行。',
 'Only the last %(cap)s runs are shown.': '只显示最近 %(cap)s 次运行。',
 'Open invitations': '未使用的邀请',
 'Open row %(n)s': '打开第 %(n)s 行',
 'OpenAI-compatible endpoint, e.g. https://api.openai.com/v1': '兼容 OpenAI 的端点，例如 '
                                                               'https://api.openai.com/v1',
 'Opening message column': '开场消息列',
 'Opening message column (optional)': '开场消息列（可选）',
 'Optional: only for endpoints that need one. Write-only: stored encrypted and never shown again.': '可选：仅在端点需要时填写。只写：加密保存，之后不再显示。',
 'Optional: sent before the chat, filled from the row like the system message.': '可选：在对话之前发送，像系统消息一样从该行填充。',
 'Or let the Python client run your task': '或者让 Python 客户端运行你的任务',
 'Orders': '顺序',
 'Orders disagreed': '两种顺序结果不一致',
 'Orders disagreed on %(i)s of %(j)s pairs (counted as ties).': '%(j)s 个配对中有 %(i)s '
                                                                '个两种顺序的结果不一致（算作平局）。',
 'Outcome': '结果',
 'Output': '输出',
 'Output (JMESPath)': '输出（JMESPath）',
 'Output (print)': '输出（print）',
 'Output tokens (JMESPath)': '输出 Token 数（JMESPath）',
 'Output tokens (JMESPath, optional)': '输出 Token 数（JMESPath，可选）',
 'Outputs re-used from %(name)s: no target calls were made.': '复用了 %(name)s 的输出：没有调用评测对象。',
 "Overrides a result's `verdict` (pass, fail or unknown) and optionally its `score` in [0, 1], with a `note` saying why; the original verdict and score stay beside the correction, and the run's pass rates count the corrected verdict. An empty verdict removes the correction. 400 names the field: an unknown verdict, a missing note, or a score outside [0, 1].": '覆盖某个结果的 '
                                                                                                                                                                                                                                                                                                                                                                         '`verdict`（pass、fail '
                                                                                                                                                                                                                                                                                                                                                                         '或 '
                                                                                                                                                                                                                                                                                                                                                                         'unknown），并可选地覆盖其 '
                                                                                                                                                                                                                                                                                                                                                                         '`score`（[0, '
                                                                                                                                                                                                                                                                                                                                                                         '1] '
                                                                                                                                                                                                                                                                                                                                                                         '内），需附 '
                                                                                                                                                                                                                                                                                                                                                                         '`note` '
                                                                                                                                                                                                                                                                                                                                                                         '说明原因；原始判定和分数保留在修正旁边，运行的通过率按修正后的判定计算。判定为空表示撤销修正。返回 '
                                                                                                                                                                                                                                                                                                                                                                         '400 '
                                                                                                                                                                                                                                                                                                                                                                         '时会指明字段：未知的判定、缺少说明，或分数超出 '
                                                                                                                                                                                                                                                                                                                                                                         '[0, '
                                                                                                                                                                                                                                                                                                                                                                         '1]。',
 'Owner': '所有者',
 'P(best)': '最优概率',
 'Page %(n)s of %(total)s · %(count)s in all': '第 %(n)s / %(total)s 页 · 共 %(count)s 项',
 'Pages': '分页',
 'Pair': '配对',
 "Pairs each candidate experiment with the baseline item by item and returns, per evaluator, the pass rates, their difference with its interval, McNemar's p-value and the rows that regressed or improved, plus one page of the row diff of one candidate and one evaluator (by default the first candidate and the evaluator with the most regressions). Every run must be in this workspace and on the same evalset as the baseline (other versions of it pair by item id). 400 names the parameter when the baseline or candidates are missing, a candidate is the baseline or runs on another evalset, or `page_size` is not a whole number; 404 when an id is not an experiment of this workspace.": '将每个候选实验与基线按数据项配对，对每个评估器返回通过率、其差值及区间、McNemar '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '检验的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'p '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '值、退化和改进的行，以及某个候选和某个评估器的一页行差异（默认为第一个候选和退化最多的评估器）。每次运行都必须在此工作空间中，且与基线在同一评测集上（该评测集的其他版本按数据项 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '配对）。缺少基线或候选、某个候选就是基线或运行在另一个评测集上，或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`page_size` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '不是整数时，返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '并指明参数；某个 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '不是此工作空间的实验时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '404。',
 'Pairwise': '成对评测',
 'Pairwise LLM judge': '成对 LLM 评估器',
 'Pairwise judge': '成对评估器',
 'Pairwise judges': '成对评估器',
 'Pairwise runs': '成对运行',
 "Partial: the report stops at line %(line)s without garak's closing “completion” entry; this run holds the %(attempts)s scored attempts it had.": '部分导入：报告在第 '
                                                                                                                                                   '%(line)s '
                                                                                                                                                   '行结束，缺少 '
                                                                                                                                                   'garak '
                                                                                                                                                   '收尾的“completion”条目；此运行包含报告中已有的 '
                                                                                                                                                   '%(attempts)s '
                                                                                                                                                   '个已打分的尝试。',
 'Pass': '通过',
 'Pass rate': '通过率',
 'Pass rate of %(name)s in %(n)s run, with its interval. Regressions marked: %(r)s. The table below lists every point.': ['%(name)s '
                                                                                                                          '在 '
                                                                                                                          '%(n)s '
                                                                                                                          '次运行中的通过率及其区间。标记的退化：%(r)s。下表列出每个点。'],
 'Pass rate per evaluator over the last %(n)s completed run on this evaluation set (any version), in the order they finished, newest right.': ['此评测集（任意版本）上最近 '
                                                                                                                                               '%(n)s '
                                                                                                                                               '次已完成运行中每个评估器的通过率，按完成顺序排列，最新的在右。'],
 'Pass rate with 95%% CI': '通过率及 95%% 置信区间',
 'Password': '密码',
 'Per assistant turn: one result per reply of the conversation, with the history up to it; the row passes by the rule chosen.': '按助手轮次：对话中的每条回复一个结果，附带到该回复为止的历史；该行按所选规则判定是否通过。',
 'Per-row mean score, mean': '每行平均分的平均值',
 'Per-row pass share, mean': '每行通过比例的平均值',
 'Persona column': '角色设定列',
 'Pick rows from an evalset': '从评测集中选取行',
 'Placeholders may be used in the path and query, not the host.': '占位符可以用在路径和查询参数中，不能用在主机名中。',
 'Placeholders such as {{item_id}} may be used in the path and query.': '路径和查询参数中可以使用 {{item_id}} '
                                                                        '之类的占位符。',
 "Placeholders: {{column}} (text), {{column | number}}, {{column | json}}, {{column | url}} (media as a URL your app can fetch), {{item_id}}. 429, 5xx and timeouts are retried with backoff. Your app's answer is offered to the evaluators as “target: actual_output” and, when extracted, “target: trajectory”.": '占位符：{{column}}（文本）、{{column '
                                                                                                                                                                                                                                                                                                                     '| '
                                                                                                                                                                                                                                                                                                                     'number}}、{{column '
                                                                                                                                                                                                                                                                                                                     '| '
                                                                                                                                                                                                                                                                                                                     'json}}、{{column '
                                                                                                                                                                                                                                                                                                                     '| '
                                                                                                                                                                                                                                                                                                                     'url}}（媒体以你的应用可以获取的 '
                                                                                                                                                                                                                                                                                                                     'URL '
                                                                                                                                                                                                                                                                                                                     '形式提供）、{{item_id}}。429、5xx '
                                                                                                                                                                                                                                                                                                                     '和超时会退避重试。你的应用的回答以“target: '
                                                                                                                                                                                                                                                                                                                     'actual_output”提供给评估器，提取到轨迹时还有“target: '
                                                                                                                                                                                                                                                                                                                     'trajectory”。',
 'Plain text with a JSON instruction': '纯文本加 JSON 指令',
 'Policy': '策略',
 'Position bias of %(judge)s': '%(judge)s 的位置偏差',
 'Prefix': '前缀',
 'Preview with this mapping': '按此映射预览',
 'Previous': '上一页',
 'Prices': '价格',
 'Probe': '探针',
 'Probe %(probe)s has %(count)s detectors; an experiment takes at most %(cap)s evaluators.': '探针 '
                                                                                             '%(probe)s '
                                                                                             '有 '
                                                                                             '%(count)s '
                                                                                             '个检测器；一个实验最多使用 '
                                                                                             '%(cap)s '
                                                                                             '个评估器。',
 'Probes': '探针',
 'Problem': '问题',
 'Problems': '问题',
 'Progress': '进度',
 'Prompt': '提示词',
 'Prompt language': '提示词语言',
 'Prompt language (LLM templates)': '提示词语言（LLM 模板）',
 'Prompt on %(model)s': '在 %(model)s 上运行提示词',
 'Prompt: an LLM answers each row first': '提示词：先由 LLM 回答每一行',
 'Provider': '模型服务',
 'Provider deleted.': '模型服务已删除。',
 'Provider saved.': '模型服务已保存。',
 'Push outputs to this run': '向此运行推送输出',
 'Push target outputs': '推送评测对象的输出',
 'Python may import': 'Python 可导入',
 'Python may import:': 'Python 可导入：',
 'Python or JavaScript defining exec_evaluation(turn), run in the sandbox.': '定义 '
                                                                             'exec_evaluation(turn) '
                                                                             '的 Python 或 '
                                                                             'JavaScript '
                                                                             '代码，在沙箱中运行。',
 'Quality (1.0 is best)': '质量（1.0 为最好）',
 'Queued': '排队中',
 'Queues a draft for the workers (202): its rows are split into chunks, which run and write results as they go. 400 when the experiment is not a draft.': '将草稿排队交给工作进程（202）：其行被切分为分块，分块运行时逐步写入结果。实验不是草稿时返回 '
                                                                                                                                                          '400。',
 'Rank': '排名',
 'Raw model answer': '模型原始回答',
 'Raw target response': '评测对象的原始响应',
 'Re-score': '重新打分',
 'Re-score a run once it has finished.': '请在运行结束后再重新打分。',
 'Re-score an experiment': '重新打分',
 'Re-score launched: the target is not called again.': '重新打分已启动：不会再次调用评测对象。',
 'Re-score of an earlier run': '对之前某次运行重新打分',
 'Re-score with other evaluators': '用其他评估器重新打分',
 'Re-score: the outputs of an earlier run': '重新打分：使用之前某次运行的输出',
 'Read a garak run into Assay: its dashboard, intervals, per-intent table, compare and the CI gate then work on it, and its report.jsonl, hit log and console come back out as garak writes them.': '把一次 '
                                                                                                                                                                                                    'garak '
                                                                                                                                                                                                    '运行读入 '
                                                                                                                                                                                                    'Assay：之后其看板、区间、按意图的表格、对比和 '
                                                                                                                                                                                                    'CI '
                                                                                                                                                                                                    '门禁都可以使用，其 '
                                                                                                                                                                                                    'report.jsonl、命中日志和控制台输出也能按 '
                                                                                                                                                                                                    'garak '
                                                                                                                                                                                                    '的格式导出。',
 'Reading the file…': '正在读取文件…',
 'Ready': '就绪',
 'Reason': '理由',
 'Recent imports': '最近的导入',
 'Recently created': '最近创建',
 'Recently updated': '最近更新',
 'Refresh the list': '刷新列表',
 'Relative standing needs three earlier completed runs on this evalset': '相对排名需要此评测集上之前至少三次已完成的运行',
 'Remove': '移除',
 'Remove a member': '移除成员',
 'Remove message': '移除消息',
 'Removes a row from the draft (204); versions that hold it keep it. 404 when the row is not in the draft.': '从草稿中删除一行（204）；包含它的版本仍保留它。该行不在草稿中时返回 '
                                                                                                             '404。',
 'Removes the member from the workspace; their API tokens for it stop working. Owners only; 400 when they are its last owner.': '将该成员移出工作空间，其在该空间的 '
                                                                                                                                'API '
                                                                                                                                '令牌随即失效。仅限所有者；对方是最后一位所有者时返回 '
                                                                                                                                '400。',
 'Rename a workspace': '重命名工作空间',
 'Rendered prompt': '渲染后的提示词',
 'Rendered request': '渲染后的请求',
 'Repetition': '重复',
 'Repetitions': '重复次数',
 'Repetitions must be a whole number from 1 to %(max_repetitions)s.': '重复次数必须是 1 到 '
                                                                      '%(max_repetitions)s 之间的整数。',
 'Replace a model provider': '替换模型服务',
 "Replace a secret's value": '替换密钥的值',
 'Replace the code with the starter of the other language? Your edits will be lost.': '用另一种语言的初始代码替换当前代码？你的修改将会丢失。',
 'Replace the draft with this version? Unsubmitted edits in the draft are lost.': '用此版本替换草稿？草稿中未提交的修改将会丢失。',
 "Replace the draft's rows instead of adding to them": '替换草稿的行，而不是追加',
 "Replaces the workspace's defaults with `interval`; keys left out fall back to garak's defaults. Runs already created keep their settings. 400 names the key at fault.": '用 '
                                                                                                                                                                          '`interval` '
                                                                                                                                                                          '替换工作空间的默认设置；省略的键回退到 '
                                                                                                                                                                          'garak '
                                                                                                                                                                          '的默认值。已创建的运行保留其设置。返回 '
                                                                                                                                                                          '400 '
                                                                                                                                                                          '时会指明出错的键。',
 'Request': '请求',
 'Requests per minute': '每分钟请求数',
 'Requests per minute (optional)': '每分钟请求数（可选）',
 'Required': '必填',
 'Required variable %(name)r is not mapped.': '必填变量 %(name)r 未映射。',
 'Required variable %(name)r is not used in any message.': '必填变量 %(name)r 没有在任何消息中使用。',
 'Response': '响应',
 'Restore': '恢复',
 'Restore a deleted evaluator': '恢复已删除的评估器',
 'Restore into the draft': '恢复到草稿',
 'Results': '结果',
 'Results to compute': '要计算的结果',
 'Retries': '重试次数',
 'Retry %(n)s failed row (%(target)s target, %(evaluator)s evaluator)': ['重试 %(n)s 个失败行（评测对象 '
                                                                         '%(target)s 个，评估器 '
                                                                         '%(evaluator)s 个）'],
 'Retry %(n)s pair that errored': ['重试 %(n)s 个出错的配对'],
 'Retry %(n)s row that errored or timed out': ['重试 %(n)s 个出错或超时的行'],
 'Retry failed pairs': '重试失败的配对',
 'Retry failed rows': '重试失败的行',
 'Retry once the experiment has finished.': '请在实验结束后再重试。',
 'Retrying %(n)d failed rows.': '正在重试 %(n)d 个失败行。',
 'Retrying %(n)d failed rows: %(target)d target rows are called again, then scored; %(evaluator)d evaluator rows are scored again.': '正在重试 '
                                                                                                                                     '%(n)d '
                                                                                                                                     '个失败行：%(target)d '
                                                                                                                                     '行重新调用评测对象后打分；%(evaluator)d '
                                                                                                                                     '行由评估器重新打分。',
 "Returns the workspaces you are a member of, each with your `role` in it. With an API token, only the token's own workspace is listed.": '返回你所属的工作空间，并附上你在其中的 '
                                                                                                                                          '`role`。使用 '
                                                                                                                                          'API '
                                                                                                                                          '令牌时，只列出该令牌所属的工作空间。',
 'Review': '检查',
 'Review and launch': '检查并启动',
 'Revoke': '吊销',
 'Revoke an API token': '吊销 API 令牌',
 'Risk (1.0 means harm detected)': '风险（1.0 表示检测到危害）',
 'Role': '角色',
 'Row': '行',
 'Row %(n)s': '第 %(n)s 行',
 'Row %(n)s compared': '第 %(n)s 行的对比',
 'Row %(n)s in the evaluation set': '评测集中的第 %(n)s 行',
 'Row %(number)s': '第 %(number)s 行',
 'Row deleted.': '行已删除。',
 'Row fields: tags (comma-separated, or a JSON list), human_verdict (pass, fail, unknown), label. An item_id column (from an export) is ignored.': '行字段：tags（逗号分隔，或 '
                                                                                                                                                   'JSON '
                                                                                                                                                   '列表）、human_verdict（pass、fail、unknown）、label。item_id '
                                                                                                                                                   '列（来自导出）会被忽略。',
 'Row number': '行号',
 'Row order': '行顺序',
 'Row saved.': '行已保存。',
 'Rows': '行',
 'Rows of %(file)s': '%(file)s 的行',
 'Rows per task; smaller chunks show progress sooner.': '每个任务的行数；分块越小，进度显示得越早。',
 'Run': '运行',
 'Run an evaluator on test rows': '在测试行上运行评估器',
 "Run an evaluator's test cases": '运行评估器的测试用例',
 'Run tests': '运行测试',
 'Run the target (or, without one, each judge) this many times per row: the dashboard shows pass@k and pass^k, and intervals resample rows, not repetitions.': '每行运行评测对象（没有评测对象时，运行每个评估器）这么多次：看板显示 '
                                                                                                                                                               'pass@k '
                                                                                                                                                               '和 '
                                                                                                                                                               'pass^k，区间按行而不是按重复重采样。',
 'Running': '运行中',
 'Running the test cases on the saved draft…': '正在已保存的草稿上运行测试用例……',
 'Running…': '运行中…',
 'Runs every test case on the current draft and returns `total`, `agreed`, `passed` (every case agreed) and, per case, the expected and actual verdict, status, score, reason and error. Nothing is saved.': '在当前草稿上运行所有测试用例，返回 '
                                                                                                                                                                                                             '`total`、`agreed`、`passed`（所有用例都一致）以及每个用例的期望和实际判定、状态、分数、理由和错误。不保存任何内容。',
 'Runs the draft, an unsaved `config` or a submitted `version` on 1 to 10 `turns` and returns one outcome per turn: status, score, verdict, reason, stdout, the rendered judge request, the raw answer, latency and tokens. Nothing is saved. A turn is {evaluate_dataset_fields: {name: content}, evaluate_target_output_fields: {name: content}, ext: {key: text}}, where content is text or a content object. 400 names the turn field or config key at fault; a row that fails to run is an outcome with status error or timeout, not an error status.': '在 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '1 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '到 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '10 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '个 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '`turns` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '上运行草稿、未保存的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '`config` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '或已提交的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '`version`，每个 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'turn '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '返回一个结果：状态、分数、判定、理由、stdout、渲染后的评判请求、原始回答、延迟和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'Token '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '数。不保存任何内容。turn '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '{evaluate_dataset_fields: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '{name: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'content}, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'evaluate_target_output_fields: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '{name: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'content}, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'ext: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '{key: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'text}}，其中 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'content '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '为文本或内容对象。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '时会指明出错的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'turn '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '字段或配置键；某行运行失败时，它是状态为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'error '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             'timeout '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                             '的结果，而不是错误状态码。',
 "Runs the editor's current draft (saved or not) on these turns. Nothing is stored.": '在这些轮次上运行编辑器中的当前草稿（无论是否已保存）。不保存任何内容。',
 'Runs the failed rows again, into the same experiment (202): the rows whose target call failed (an error or a timeout) are called again — only those, with the same Idempotency-Key — and then scored; the rows whose evaluator errored or timed out (or never wrote a result) are scored again. `retried` says how many rows, `target_rows` and `evaluator_rows` how many of each. 400 while the run is not finished, or when there is nothing to retry.': '在同一实验中再次运行失败的行（202）：评测对象调用失败（出错或超时）的行会重新调用——只调用这些行，并使用相同的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             'Idempotency-Key——然后打分；评估器出错、超时（或从未写入结果）的行会重新打分。`retried` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             '表示总行数，`target_rows` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             '和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             '`evaluator_rows` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             '分别表示这两类各有多少行。运行尚未结束或没有可重试的内容时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                             '400。',
 'Runs the rows that errored or timed out (and any that were never written) again, into the same experiment (202); `retried` says how many. 400 while the run is not finished, or when there is nothing to retry.': '在同一实验中再次运行出错或超时的行（以及从未写入的行）（202）；`retried` '
                                                                                                                                                                                                                    '表示数量。运行尚未结束或没有可重试的内容时返回 '
                                                                                                                                                                                                                    '400。',
 'Same set-up, as a new draft; pick other evaluator versions or another evalset version to compare.': '相同的设置，作为新草稿；选择其他评估器版本或另一个评测集版本来对比。',
 'Save': '保存',
 'Save as draft': '保存为草稿',
 'Save correction': '保存修正',
 'Save draft': '保存草稿',
 'Save row': '保存行',
 'Save secret': '保存密钥',
 'Say why you correct this result.': '请说明修正此结果的原因。',
 'Says that no more outputs will be pushed (202): rows without one are scored unknown ("no output") and the run completes once its evaluators finish. 400 when the experiment does not take pushed outputs or is not queued or running.': '表示不会再推送输出（202）：没有输出的行判为未知（“无输出”），评估器结束后运行即完成。实验不接受推送的输出，或不在排队中或运行中时返回 '
                                                                                                                                                                                                                                          '400。',
 'Score': '分数',
 'Score (optional)': '分数（可选）',
 'Score every row of an evalset version with one or more evaluator versions.': '用一个或多个评估器版本为某个评测集版本的每一行打分。',
 'Score histogram': '分数直方图',
 'Score meaning': '分数含义',
 'Scored': '打分方式',
 'Scored per assistant turn: %(turns)s turns of %(n)s conversation': ['按助手轮次打分：%(n)s 段对话共 '
                                                                      '%(turns)s 轮'],
 'Scored reply': '被打分的回复',
 'Scored reply: %(reply)s': '被打分的回复：%(reply)s',
 'Scoring per assistant turn needs a Conversation variable mapped to a Conversation column or to target:conversation.': '按助手轮次打分需要一个映射到 '
                                                                                                                        'Conversation '
                                                                                                                        '列或 '
                                                                                                                        'target:conversation '
                                                                                                                        '的 '
                                                                                                                        'Conversation '
                                                                                                                        '变量。',
 'Search by name': '按名称搜索',
 'Search cells, reasons and errors': '搜索单元格、理由和错误',
 'Search text': '搜索文字',
 'Secret %(name)s deleted.': '密钥 %(name)s 已删除。',
 'Secret %(name)s saved.': '密钥 %(name)s 已保存。',
 'Secrets': '密钥',
 'See the rows': '查看这些行',
 'Seed': '种子',
 'Send it as': '发送方式',
 'Sends one row of `evalset_version` (the `item_id` given, else the first row) through `target`, the same object as in Create an experiment, and answers the request as sent (secrets by name, never their value), the raw response, the extracted `actual_output` and trajectory, status, error, latency, tokens and cost. Nothing is stored. 400 names the field: an invalid target, a kind that sends no request (none, external, rescore), or a row not in the version.': '把 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '`evalset_version` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '的一行（给出的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '`item_id`，否则为第一行）交给 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '`target`（与创建实验中的对象相同），返回实际发送的请求（密钥只显示名称，从不显示值）、原始响应、提取出的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '`actual_output` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '和轨迹、状态、错误、延迟、Token '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '数和成本。不保存任何内容。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                              '时会指明字段：评测对象无效、该类型不发送请求（none、external、rescore），或该行不在此版本中。',
 'Sends the first row of the evalset version through this target and shows what came back; nothing is saved.': '把评测集版本的第一行发给此评测对象并显示返回的内容；不保存任何内容。',
 'Sends the first row through the target again and shows what came back; nothing is saved.': '再次把第一行发给评测对象并显示返回的内容；不保存任何内容。',
 'Served from the response cache: no request was made': '来自响应缓存：没有发出请求',
 'Set the default interval settings': '修改默认区间设置',
 "Sets a new `value` (omitted or empty: the stored one stays) and the `origins` it may be sent to (omitted: the stored ones stay); the name does not change. An HTTP target whose URL's origin is no longer listed is refused from its next request. Owners only; 400 when the value is over 8 KB or an origin is not scheme://host[:port].": '设置新的 '
                                                                                                                                                                                                                                                                                                                                              '`value`（省略或留空则保留已保存的值）以及它可发送到的 '
                                                                                                                                                                                                                                                                                                                                              '`origins`（省略则保留已保存的源）；名称不变。URL '
                                                                                                                                                                                                                                                                                                                                              '的源不再列出的 '
                                                                                                                                                                                                                                                                                                                                              'HTTP '
                                                                                                                                                                                                                                                                                                                                              '评测对象，从下一次请求起会被拒绝。仅限所有者；值超过 '
                                                                                                                                                                                                                                                                                                                                              '8 '
                                                                                                                                                                                                                                                                                                                                              'KB '
                                                                                                                                                                                                                                                                                                                                              '或某个源不是 '
                                                                                                                                                                                                                                                                                                                                              'scheme://host[:port] '
                                                                                                                                                                                                                                                                                                                                              '时返回 '
                                                                                                                                                                                                                                                                                                                                              '400。',
 'Sets a new `value` for the secret; the body is the same as for storing one and the name does not change. Owners only; 400 when the value is empty or over 8 KB.': '为密钥设置新的 '
                                                                                                                                                                    '`value`；请求体与保存时相同，名称不变。仅限所有者；值为空或超过 '
                                                                                                                                                                    '8 '
                                                                                                                                                                    'KB '
                                                                                                                                                                    '时返回 '
                                                                                                                                                                    '400。',
 'Sets every field, as when adding one. Leave `api_key` out (or empty) to keep the stored key; a new `base_url` drops it, so send the key for the new endpoint with it. Owners only; 400 names the field at fault.': '设置所有字段，与添加时相同。省略 '
                                                                                                                                                                                                                     '`api_key`（或留空）则保留已保存的密钥；新的 '
                                                                                                                                                                                                                     '`base_url` '
                                                                                                                                                                                                                     '会丢弃它，因此请同时发送新端点的密钥。仅限所有者；返回 '
                                                                                                                                                                                                                     '400 '
                                                                                                                                                                                                                     '时会指明出错的字段。',
 "Sets the member's `role`. Owners only. 400 when the role is unknown or the change would leave the workspace without an owner; 404 when the id is not a member of this workspace.": '设置成员的 '
                                                                                                                                                                                     '`role`。仅限所有者。角色未知或修改后工作空间将没有所有者时返回 '
                                                                                                                                                                                     '400；该 '
                                                                                                                                                                                     'id '
                                                                                                                                                                                     '不是此工作空间的成员时返回 '
                                                                                                                                                                                     '404。',
 'Settings': '设置',
 'Share of bootstrap fits where it ranked first': '在 bootstrap 拟合中排名第一的比例',
 'Share of rows that passed in at least one repetition': '至少有一次重复通过的行所占比例',
 'Share of rows that passed in every repetition': '每次重复都通过的行所占比例',
 'Show': '显示',
 'Show deleted': '显示已删除',
 'Show diff': '显示差异',
 'Show every row': '显示所有行',
 'Show its experiments': '显示其实验',
 'Show the mappings for these choices': '显示这些选择的映射',
 'Shown %(order)s': '以 %(order)s 顺序展示',
 'Shown A, B': '按 A、B 顺序展示',
 'Shown B, A': '按 B、A 顺序展示',
 'Sign in': '登录',
 'Sign in to Assay': '登录 Assay',
 'Sign out': '退出登录',
 'Sign test': '符号检验',
 'Sign-in paused': '登录已暂停',
 'Simulated user (%(model)s, up to %(n)s turns) against %(app)s': '模拟用户（%(model)s，最多 %(n)s 轮）与 '
                                                                  '%(app)s 对话',
 "Simulated user's instructions": '模拟用户的指令',
 "Simulated user's provider": '模拟用户的模型服务',
 'Simulated user: an LLM plays the user against your app, turn by turn': '模拟用户：由 LLM '
                                                                         '扮演用户，与你的应用逐轮对话',
 'Skip bad rows (import the good ones and report the rest)': '跳过错误行（导入正确的行，并报告错误行）',
 'Slug': 'Slug',
 'Slug (optional)': 'Slug（可选）',
 'Soft delete (204): the evaluator leaves the list (list it with `deleted=true`) and can be restored; experiments that use its versions keep them.': '软删除（204）：评估器从列表中消失（用 '
                                                                                                                                                     '`deleted=true` '
                                                                                                                                                     '列出），之后可以恢复；使用其版本的实验仍保留这些版本。',
 'Soft delete (204): the set leaves the list; experiments keep the versions they ran on.': '软删除（204）：评测集从列表中消失；实验保留其运行时所用的版本。',
 'Some experiments never met a common opponent: their strengths across groups rest on the prior alone.': '有些实验从未遇到共同的对手：它们在不同组之间的实力值只取决于先验。',
 'Some required variable has no column of its name: choose one below.': '有必填变量没有同名的列：请在下方选择。',
 'Something went wrong on our side; it was logged.': '服务端出错了，已记录日志。',
 'Sort': '排序',
 'Sort by score:<evaluator>, -score:… or verdict:….': '排序方式为 score:<evaluator>、-score:… 或 '
                                                      'verdict:…。',
 'Source': '源代码',
 'Source is %(size)s bytes; the limit is %(max_source_bytes)s (64 KiB).': '源代码为 %(size)s 字节；上限为 '
                                                                          '%(max_source_bytes)s（64 '
                                                                          'KiB）。',
 'Start from a template': '从模板开始',
 'Start from one of the preset judges and code checks, or write your own.': '从预置的 LLM '
                                                                            '评估器和代码检查开始，或自己编写。',
 'Start import': '开始导入',
 'Start one from the preset "Which answer is better (pairwise)" and submit a version.': '从预置模板“哪个回答更好（成对）”创建一个，并提交一个版本。',
 'Started': '开始于',
 'Status': '状态',
 'Steps': '步骤',
 'Stop phrase': '结束语',
 'Stops a queued or running experiment (202): a queued one is cancelled at once, running chunks stop between rows, and the run ends cancelled with the results written so far. 400 for a draft or a finished experiment.': '停止排队中或运行中的实验（202）：排队中的立即取消，运行中的分块在行与行之间停下，运行以已取消结束，并保留已写入的结果。草稿或已结束的实验返回 '
                                                                                                                                                                                                                           '400。',
 'Stops a queued or running pairwise run (202): running chunks drop their calls in flight and the run ends cancelled with the statistics of the pairs judged so far. 400 for a run that already finished.': '停止排队中或运行中的成对运行（202）：运行中的分块放弃进行中的调用，运行以已取消结束，并保留已评判配对的统计。已结束的运行返回 '
                                                                                                                                                                                                            '400。',
 'Store a secret': '保存密钥',
 "Stores `value` encrypted under `name` (letters, digits and _, at most 64 characters, e.g. APP_TOKEN); an HTTP target's headers use it as `{{secrets.NAME}}`, and may send it only to its `origins` (scheme://host[:port], at most 20; none: it is sent nowhere). Storing a name that exists replaces its value (empty: keeps it) and its origins when given. Owners only. 400 names the field when the name is malformed, a new secret has no value, the value is over 8 KB, or an origin is not scheme://host[:port].": '将 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`value` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '加密保存在 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`name` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '下（字母、数字和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '_，最多 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '64 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '个字符，例如 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'APP_TOKEN）；HTTP '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '评测对象的请求头以 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`{{secrets.NAME}}` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '使用它，且只能发送到它的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '`origins`（scheme://host[:port]，最多 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '20 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '个；没有则不发送到任何地方）。保存已存在的名称会替换其值（留空则保留原值），给出 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'origins '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '时也替换其源。仅限所有者。名称格式不对、新密钥没有值、值超过 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '8 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'KB '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '或某个源不是 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           'scheme://host[:port] '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           '400，并指明字段。',
 "Stores `value` encrypted under `name` (letters, digits and _, at most 64 characters, e.g. APP_TOKEN); an HTTP target's headers use it as `{{secrets.NAME}}`. Storing a name that exists replaces its value. Owners only. 400 names the field when the name is malformed or the value is empty or over 8 KB.": '将 '
                                                                                                                                                                                                                                                                                                                '`value` '
                                                                                                                                                                                                                                                                                                                '加密保存在 '
                                                                                                                                                                                                                                                                                                                '`name` '
                                                                                                                                                                                                                                                                                                                '下（字母、数字和 '
                                                                                                                                                                                                                                                                                                                '_，最多 '
                                                                                                                                                                                                                                                                                                                '64 '
                                                                                                                                                                                                                                                                                                                '个字符，例如 '
                                                                                                                                                                                                                                                                                                                'APP_TOKEN）；HTTP '
                                                                                                                                                                                                                                                                                                                '评测对象的请求头以 '
                                                                                                                                                                                                                                                                                                                '`{{secrets.NAME}}` '
                                                                                                                                                                                                                                                                                                                '使用它。保存已存在的名称会替换其值。仅限所有者。名称格式不对、值为空或超过 '
                                                                                                                                                                                                                                                                                                                '8 '
                                                                                                                                                                                                                                                                                                                'KB '
                                                                                                                                                                                                                                                                                                                '时返回 '
                                                                                                                                                                                                                                                                                                                '400，并指明字段。',
 'Strength': '实力值',
 'Strengths are log-odds, centred on 0, with a weak prior (SD %(sd)s) that keeps a clean sweep finite; %(r)s bootstrap refits give the intervals and P(best).': '实力值为以 '
                                                                                                                                                                '0 '
                                                                                                                                                                '为中心的对数几率，带有一个弱先验（标准差 '
                                                                                                                                                                '%(sd)s），使全胜的结果也保持有限；区间和最优概率来自 '
                                                                                                                                                                '%(r)s '
                                                                                                                                                                '次 '
                                                                                                                                                                'bootstrap '
                                                                                                                                                                '重新拟合。',
 'Structured output (JSON schema)': '结构化输出（JSON Schema）',
 'Submit': '提交',
 'Submit a version': '提交版本',
 'Submit an evaluator version': '提交评估器版本',
 'Submit checks': '提交检查',
 'Submit the draft as 0.0.1 from the Draft tab; experiments run submitted versions.': '在“草稿”标签页把草稿提交为 '
                                                                                      '0.0.1；实验运行已提交的版本。',
 'Submit the draft as 1.0.0 from the Draft tab; experiments run submitted versions.': '请在“草稿”标签页将草稿提交为 '
                                                                                      '1.0.0；实验只运行已提交的版本。',
 'Submit version': '提交版本',
 'Submits the saved draft. Versions never change once submitted.': '提交已保存的草稿。版本一经提交便不再改变。',
 'Submitted': '提交于',
 'Switch': '切换',
 'Syntax error on line %(lineno)s: %(msg)s.': '第 %(lineno)s 行有语法错误：%(msg)s。',
 'System message': '系统消息',
 'Tag': '标签',
 'Tags': '标签',
 'Tags must be a list of strings.': '标签必须是字符串列表。',
 'Target': '评测对象',
 'Target outputs': '评测对象输出',
 'Temperature': '温度',
 'Template': '模板',
 "Test a provider's connection": '测试模型服务的连接',
 'Test a target on one row': '在一行上测试评测对象',
 'Test case': '测试用例',
 'Test case name': '测试用例名称',
 "Test cases are turns with the verdict the evaluator should give. They run on every submit (the version records the agreement) and with Run an evaluator's test cases.": '测试用例是带有评估器应给出的判定的 '
                                                                                                                                                                          'turn。每次提交时都会运行（版本记录是否一致），也可以用“运行评估器的测试用例”运行。',
 'Test connection': '测试连接',
 'Test request': '测试请求',
 'Tests': '测试',
 'Tests: %(a)d of %(t)d agree with the expected verdict.': '测试：%(t)d 个中有 %(a)d 个与期望判定一致。',
 'Text': '文本',
 "Text content needs a string 'text'.": "Text 内容需要字符串字段 'text'。",
 'That run has no target outputs to score again.': '该运行没有可重新打分的评测对象输出。',
 "The %(n)s rows' target outputs of this run are scored again; the target is not called. The new run uses the same evalset version and repetitions, so it compares paired with this one.": '此运行 '
                                                                                                                                                                                           '%(n)s '
                                                                                                                                                                                           '行的评测对象输出将重新打分；不会调用评测对象。新运行使用相同的评测集版本和重复次数，因此可以与本运行成对对比。',
 'The JSON body is nested more than %(max_depth)s levels deep.': 'JSON 请求体的嵌套超过 %(max_depth)s 层。',
 "The app's templates may also use {{message}} (the user's latest message) and {{conversation}} (the chat so far); a prompt app sends its messages, then the chat.": '应用的模板还可以使用 '
                                                                                                                                                                     '{{message}}（用户的最新消息）和 '
                                                                                                                                                                     '{{conversation}}（到目前为止的对话）；提示词应用先发送它自己的消息，再发送对话。',
 'The baseline (A) is not judged against itself: untick it in B.': '基线（A）不会与自身对比：请在 B 中取消勾选它。',
 'The baseline cannot also be a candidate.': '基线不能同时作为候选。',
 'The body template is larger than 64 KB.': '请求体模板大于 64 KB。',
 "The candidate's evalset version holds other values here:": '候选的评测集版本在这里存有不同的值：',
 'The committed versions of one set, highest SemVer first, each with its note, row count and columns. 404 when the set is not in this workspace.': '一个评测集已提交的版本，SemVer '
                                                                                                                                                   '最高的在前，附带备注、行数和列。评测集不在此工作空间时返回 '
                                                                                                                                                   '404。',
 'The demo is loaded: sign in as <strong>%(user)s</strong> with the password <code>%(password)s</code>.': '演示数据已加载：以 '
                                                                                                          '<strong>%(user)s</strong> '
                                                                                                          '登录，密码为 '
                                                                                                          '<code>%(password)s</code>。',
 'The draft cannot be changed and experiments cannot use this version until every row is copied.': '在所有行复制完成之前，草稿不能修改，实验也不能使用此版本。',
 'The draft has %(n)s rows.': '草稿有 %(n)s 行。',
 'The draft has uncommitted changes': '草稿有未提交的修改',
 'The draft has unsubmitted changes': '草稿有未提交的修改',
 'The draft of %(name)r has changes that are not committed as a version; commit or undo them first, or name another set.': '%(name)r '
                                                                                                                           '的草稿有尚未提交为版本的更改；请先提交或撤销这些更改，或指定另一个评测集。',
 'The draft was not saved:': '草稿未保存：',
 'The encoding %(name)s is now chosen below: choose the file again and upload it.': '已在下方选好编码 '
                                                                                    '%(name)s：请重新选择文件并上传。',
 'The encoding is one of %(encodings)s.': '编码须为 %(encodings)s 之一。',
 'The evalset version has no column %(column)r.': '评测集版本没有列 %(column)r。',
 'The evaluation set was deleted during the import; nothing was imported.': '导入期间评测集被删除了；没有导入任何内容。',
 'The evaluator received no dataset fields.': '评估器没有收到任何数据集字段。',
 'The evaluator: its `evaluator_id` from the compare endpoint or its public id; by default the first evaluator both runs have.': '评估器：对比接口返回的 '
                                                                                                                                 '`evaluator_id` '
                                                                                                                                 '或其公开 '
                                                                                                                                 'id；默认为两次运行共有的第一个评估器。',
 'The experiment changed meanwhile; reload it.': '实验在此期间已被修改；请重新加载。',
 'The experiment is %(status)s; it takes no outputs now.': '实验处于 %(status)s 状态；现在不接受输出。',
 'The experiment is being cancelled.': '实验正在取消。',
 'The experiment was closed; it takes no more outputs.': '实验已关闭，不再接受输出。',
 'The field-by-field differences between two configs: `old` and `new` are version strings or `draft` (`new` defaults to the draft). 404 when either version does not exist.': '两份配置逐字段的差异：`old` '
                                                                                                                                                                              '和 '
                                                                                                                                                                              '`new` '
                                                                                                                                                                              '为版本字符串或 '
                                                                                                                                                                              '`draft`（`new` '
                                                                                                                                                                              '默认为草稿）。任一版本不存在时返回 '
                                                                                                                                                                              '404。',
 'The file cannot be read: line %(line)s: %(p)s': '无法读取文件：第 %(line)s 行：%(p)s',
 'The file is %(size)s bytes; at most %(limit)s bytes (%(mb)s MB) are taken.': '文件有 %(size)s '
                                                                               '字节；最多接受 %(limit)s '
                                                                               '字节（%(mb)s MB）。',
 'The file is at most %(limit)s MB.': '文件最多 %(limit)s MB。',
 'The file is at most %(max_report_bytes)s MB.': '文件最多 %(max_report_bytes)s MB。',
 'The file is not %(upper)s text. Choose its encoding (%(encodings)s) and upload it again.': '该文件不是 '
                                                                                             '%(upper)s '
                                                                                             '文本。请选择它的编码（%(encodings)s）后重新上传。',
 'The file is not %(upper)s text. It looks like %(guess)s. Choose its encoding (%(encodings)s) and upload it again.': '该文件不是 '
                                                                                                                      '%(upper)s '
                                                                                                                      '文本，看起来是 '
                                                                                                                      '%(guess)s。请选择它的编码（%(encodings)s）后重新上传。',
 'The file is not %(upper)s text.%(looks)s Choose its encoding (%(encodings)s) and upload it again.': '该文件不是 '
                                                                                                      '%(upper)s '
                                                                                                      '文本。%(looks)s请选择它的编码（%(encodings)s）后重新上传。',
 'The first row as it will be stored': ['预览：前 %(n)s 行导入后的内容'],
 'The garak reference files uploaded to this workspace: calibrations and detector metrics, with their entry counts. The newest of each kind is used.': '上传到此工作空间的 '
                                                                                                                                                       'garak '
                                                                                                                                                       '参考文件：校准文件和检测器指标，附带条目数。每种取最新的一个。',
 "The health check (/healthz) shows each worker's last heartbeat.": '健康检查（/healthz）显示每个工作进程最近一次心跳。',
 'The import stopped after %(done)s of %(total)s probes: %(error)s': '导入在完成 %(done)s / %(total)s '
                                                                     '个探针后停止：%(error)s',
 'The import stopped: %(error)s': '导入已停止：%(error)s',
 "The import's problems as CSV (line, column, problem), up to the first 1,000. 404 when the import is not this set's.": '以 '
                                                                                                                        'CSV（行、列、问题）给出导入的问题，最多前 '
                                                                                                                        '1,000 '
                                                                                                                        '个。导入不属于此评测集时返回 '
                                                                                                                        '404。',
 "The item's dataset fields once, then the baseline's and the candidate's result of one evaluator: verdict (a human correction wins), score, reason, the output with its word-level difference, the judge's rendered prompt and raw answer. With repetitions the first one is shown and `item_verdict` is their majority. 404 when a run is not in this workspace, the runs do not share the evaluator, or neither scored the item; 400 when the runs are not on the same evalset.": '先给出数据项的数据集字段，再给出基线和候选在某个评估器上的结果：判定（以人工修正为准）、分数、理由、输出及其逐词差异、评判模型渲染后的提示词和原始回答。有重复时显示第一次，`item_verdict` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '为多数结果。某次运行不在此工作空间、两次运行没有共同的评估器或都没有为该数据项打分时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '404；运行不在同一评测集上时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     '400。',
 'The judges read only the two outputs.': '评判模型只读取这两个输出。',
 "The language of the judge's prompt in the new draft; you can edit it afterwards.": '新草稿中评判模型提示词的语言，之后仍可编辑。',
 "The link was used already, withdrawn or has expired. Ask the workspace's owner for a new one.": '该链接已被使用、已撤回或已过期。请向工作空间的所有者索取新的链接。',
 'The mapping must be an object of variable → source.': '映射必须是“变量 → 来源”形式的对象。',
 "The model's answer is offered to the evaluators as “target: actual_output”.": '模型的回答以“target: '
                                                                                'actual_output”提供给评估器。',
 'The outputs and their latency come from the source run, <a href="%(source_url)s">%(name)s</a>; nothing was called (no tokens, no cost).': '输出及其延迟来自来源运行 '
                                                                                                                                            '<a '
                                                                                                                                            'href="%(source_url)s">%(name)s</a>；没有进行任何调用（不消耗 '
                                                                                                                                            'Token，不产生成本）。',
 "The pass rate above counts rows: a row's verdict is its turns' (%(rule)s).": '上面的通过率按行计数：一行的判定由其各轮决定（%(rule)s）。',
 "The preset catalogue, the same in every workspace: each template's kind, inputs, score meaning, default policy, languages and starter configs. Filter with `kind` (llm or code). Create an evaluator from one with `template: <slug>`.": '预置模板目录，在所有工作空间中相同：每个模板的类型、输入、分数含义、默认策略、语言和初始配置。用 '
                                                                                                                                                                                                                                           '`kind`（llm '
                                                                                                                                                                                                                                           '或 '
                                                                                                                                                                                                                                           'code）筛选。用 '
                                                                                                                                                                                                                                           '`template: '
                                                                                                                                                                                                                                           '<slug>` '
                                                                                                                                                                                                                                           '从模板创建评估器。',
 "The prompt shows one input and two outputs: <code>%(a)s</code> is the baseline's answer, <code>%(b)s</code> the candidate's. The judge answers A, B or tie with a reason.": '提示词展示一个输入和两个输出：<code>%(a)s</code> '
                                                                                                                                                                              '是基线的回答，<code>%(b)s</code> '
                                                                                                                                                                              '是候选的回答。评判模型回答 '
                                                                                                                                                                              'A、B '
                                                                                                                                                                              '或 '
                                                                                                                                                                              'tie，并给出理由。',
 "The report garak wrote for a run. Each probe becomes an experiment on a new version of the evalset “garak <probe>”, each detector an evaluator that reads the scores garak recorded; verdicts use the run's threshold.": 'garak '
                                                                                                                                                                                                                           '为一次运行写出的报告。每个探针成为评测集“garak '
                                                                                                                                                                                                                           '<probe>”新版本上的一个实验，每个检测器成为一个读取 '
                                                                                                                                                                                                                           'garak '
                                                                                                                                                                                                                           '所记录分数的评估器；判定使用该运行的阈值。',
 "The report garak wrote for a run. Each probe becomes an experiment on a new version of the evalset “garak <probe>”, each detector an evaluator that reads the scores garak recorded; verdicts use the run's threshold. At most 64 MB.": 'garak '
                                                                                                                                                                                                                                          '为一次运行写出的报告。每个探针成为评测集“garak '
                                                                                                                                                                                                                                          '<probe>”新版本上的一个实验，每个检测器成为一个读取 '
                                                                                                                                                                                                                                          'garak '
                                                                                                                                                                                                                                          '所记录分数的评估器；判定使用该运行的阈值。最多 '
                                                                                                                                                                                                                                          '64 '
                                                                                                                                                                                                                                          'MB。',
 'The report holds %(count)s probes; a garak import takes at most %(cap)s (ASSAY_GARAK_MAX_PROBES): each probe becomes an evalset version and a run.': '报告包含 '
                                                                                                                                                       '%(count)s '
                                                                                                                                                       '个探针；一次 '
                                                                                                                                                       'garak '
                                                                                                                                                       '导入最多接受 '
                                                                                                                                                       '%(cap)s '
                                                                                                                                                       '个（ASSAY_GARAK_MAX_PROBES）：每个探针都会成为一个评测集版本和一次运行。',
 'The report holds %(count)s scored attempts; a garak import takes at most %(cap)s (ASSAY_GARAK_MAX_ATTEMPTS).': '报告包含 '
                                                                                                                 '%(count)s '
                                                                                                                 '个已打分的尝试；一次 '
                                                                                                                 'garak '
                                                                                                                 '导入最多接受 '
                                                                                                                 '%(cap)s '
                                                                                                                 '个（ASSAY_GARAK_MAX_ATTEMPTS）。',
 "The report stops at line %(line)s without garak's closing “completion” entry: the run was stopped or the file was cut. It holds %(attempts)s scored attempts; import it as partial to keep only those.": '报告在第 '
                                                                                                                                                                                                           '%(line)s '
                                                                                                                                                                                                           '行结束，缺少 '
                                                                                                                                                                                                           'garak '
                                                                                                                                                                                                           '收尾的“completion”条目：运行被中止或文件被截断。其中有 '
                                                                                                                                                                                                           '%(attempts)s '
                                                                                                                                                                                                           '个已打分的尝试；请以部分导入的方式导入，只保留这些尝试。',
 "The report's scored attempts hold %(count)s outputs; a garak import takes at most %(cap)s (ASSAY_GARAK_MAX_OUTPUTS): each output is a row.": '报告中已打分的尝试共有 '
                                                                                                                                               '%(count)s '
                                                                                                                                               '个输出；一次 '
                                                                                                                                               'garak '
                                                                                                                                               '导入最多接受 '
                                                                                                                                               '%(cap)s '
                                                                                                                                               '个（ASSAY_GARAK_MAX_OUTPUTS）：每个输出是一行。',
 'The request body (files aside) is over the limit: the limit is %(limit)s bytes.': '请求体（不含文件）超出上限：上限为 '
                                                                                    '%(limit)s 字节。',
 'The request body is %(length)s bytes; the limit is %(limit)s.': '请求体为 %(length)s 字节，上限为 '
                                                                  '%(limit)s。',
 'The request body must be a JSON object, not %(data)s.': '请求体必须是 JSON 对象，而不是 %(data)s。',
 "The results grid: one row per item of the evalset version, with its row number, tags, data, the target's output and every evaluator's results on it, paginated. The filters of List an experiment's results select the rows that have a matching result; `q` also searches the row's cells, and `item` picks one row by its id. `sort` is row order by default, or score:<binding>, -score:<binding> or verdict:<binding> (fails first). 400 names a filter that cannot match.": '结果表格：评测集版本的每个数据项一行，附行号、标签、数据、评测对象的输出以及每个评估器在其上的结果，分页返回。“列出实验的结果”的筛选条件选出有匹配结果的行；`q` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '还会搜索行的单元格，`item` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '按 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   'id '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '选出一行。`sort` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '默认为行顺序，或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   'score:<binding>、-score:<binding>、verdict:<binding>（未通过在前）。某个筛选条件不可能匹配时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   '并指明它。',
 "The row's verdict (%(rule)s):": '该行的判定（%(rule)s）：',
 "The row's verdict: %(rule)s": '该行的判定：%(rule)s',
 'The rows in order, paginated: the draft by default, or a committed `version`. Filters: `tag` and `q` (text anywhere in the row). Stored media carry a URL that members can read them by. 404 for a version the set does not have.': '按顺序分页返回行：默认为草稿，或某个已提交的 '
                                                                                                                                                                                                                                      '`version`。筛选：`tag` '
                                                                                                                                                                                                                                      '和 '
                                                                                                                                                                                                                                      '`q`（行中任意位置的文字）。已保存的媒体附带成员可读取的 '
                                                                                                                                                                                                                                      'URL。评测集没有的版本返回 '
                                                                                                                                                                                                                                      '404。',
 'The saved draft passes the checks.': '已保存的草稿通过了检查。',
 'The secret %(name)s may not be sent to %(origin)s: it has no allowed origins yet (an owner adds them in Settings → Secrets).': '密钥 '
                                                                                                                                 '%(name)s '
                                                                                                                                 '不能发送到 '
                                                                                                                                 '%(origin)s：它还没有允许的源（由所有者在“设置 '
                                                                                                                                 '→ '
                                                                                                                                 '密钥”中添加）。',
 'The secret %(name)s may not be sent to %(origin)s: it may go only to %(origins)s (an owner changes that in Settings → Secrets).': '密钥 '
                                                                                                                                    '%(name)s '
                                                                                                                                    '不能发送到 '
                                                                                                                                    '%(origin)s：它只能发送到 '
                                                                                                                                    '%(origins)s（由所有者在“设置 '
                                                                                                                                    '→ '
                                                                                                                                    '密钥”中修改）。',
 'The set %(name)r could not be created.': '无法创建评测集 %(name)r。',
 "The set's file imports, newest first (at most 200), with status, progress and row counts.": '评测集的文件导入，最新的在前（最多 '
                                                                                              '200 '
                                                                                              '个），附带状态、进度和行数。',
 'The shaded column is this run.': '带阴影的一列是本次运行。',
 'The simulated user writes it to end the conversation.': '模拟用户写出它即结束对话。',
 'The slug %(slug)r is taken.': 'slug %(slug)r 已被占用。',
 'The slug must contain letters or digits.': 'slug 必须包含字母或数字。',
 "The statistics stored when the run last finished (the same as in Get a pairwise run): per pair of experiments, B's win rate over A with ties split and excluded, intervals, sign test p-values and position bias; the judge's position bias over every pair; with three or more experiments the leaderboard with strengths, intervals and P(best). Empty until the run finishes.": '运行最近一次结束时保存的统计（与“获取成对运行”中相同）：每对实验中 '
                                                                                                                                                                                                                                                                                                                                                                                     'B '
                                                                                                                                                                                                                                                                                                                                                                                     '相对 '
                                                                                                                                                                                                                                                                                                                                                                                     'A '
                                                                                                                                                                                                                                                                                                                                                                                     '的胜率（平局平分和排除平局）、区间、符号检验 '
                                                                                                                                                                                                                                                                                                                                                                                     'p '
                                                                                                                                                                                                                                                                                                                                                                                     '值和位置偏差；评判模型在所有配对上的位置偏差；有三个或更多实验时，还有附带实力值、区间和 '
                                                                                                                                                                                                                                                                                                                                                                                     '最优概率 '
                                                                                                                                                                                                                                                                                                                                                                                     '的排行榜。运行结束前为空。',
 'The stored report is gone; upload it again.': '已保存的报告不见了；请重新上传。',
 'The stored report was refused: %(error)s': '已保存的报告被拒绝：%(error)s',
 'The submitted versions of one evaluator, highest SemVer first, each with its frozen config and the result of its test cases. 404 when the evaluator is not in this workspace.': '一个评估器已提交的版本，SemVer '
                                                                                                                                                                                  '最高的在前，每个附带其冻结的配置和测试用例的结果。评估器不在此工作空间时返回 '
                                                                                                                                                                                  '404。',
 'The target has not answered this row yet.': '评测对象尚未回答这一行。',
 'The target is %(known)s, not %(name)r.': '评测对象是 %(known)s，不是 %(name)r。',
 'The target is an object with a kind.': '评测对象是一个带有 kind 的对象。',
 'The target needs a user message.': '评测对象需要一条用户消息。',
 'The threshold must be a number in [0, 1].': '阈值必须是 [0, 1] 内的数字。',
 'The token stops working at once and `revoked_at` is set; revoking it again changes nothing. A revoked token cannot be restored: create a new one.': '令牌立即失效，并设置 '
                                                                                                                                                      '`revoked_at`；再次吊销不会有任何变化。已吊销的令牌无法恢复：请新建一个。',
 'The turn is larger than %(max_turn_bytes)s KB.': '该轮次超过 %(max_turn_bytes)s KB。',
 "The two outputs are the experiments' answers; the rest is read from the evalset's columns. The choices start from the experiments' own mappings.": '两个输出是两个实验的回答，其余变量从评测集的列读取。初始选项取自实验自身的映射。',
 'The two runs do not share this evaluator.': '两次运行并未都使用此评估器。',
 'The two runs used different versions of this evaluator': '两次运行使用了此评估器的不同版本',
 'The username %(username)r is taken.': '用户名 %(username)r 已被占用。',
 'The version is ready: experiments can use it, and the draft can be changed again.': '版本已就绪：实验可以使用它，草稿也可以再次修改。',
 'The win rates stay fair (an answer that changes with the order counts as a tie), but this judge says more about the order than about the outputs: try a clearer prompt or a stronger model before trusting close results.': '胜率仍然公平（随顺序改变的回答按平局计），但这个评判模型的判断更多取决于顺序而不是输出本身：在相信接近的结果之前，请先试试更清楚的提示词或更强的模型。',
 "The workspace's OpenAI-compatible endpoints, used by LLM judges and prompt targets: name, base URL, default model, call settings (timeout, retries, rate limits, structured output) and prices. `has_api_key` says whether a key is stored; the key itself is never returned. Any member may list them.": '工作空间中兼容 '
                                                                                                                                                                                                                                                                                                            'OpenAI '
                                                                                                                                                                                                                                                                                                            '的端点，供 '
                                                                                                                                                                                                                                                                                                            'LLM '
                                                                                                                                                                                                                                                                                                            '评估器和提示词评测对象使用：名称、Base '
                                                                                                                                                                                                                                                                                                            'URL、默认模型、调用设置（超时、重试、限流、结构化输出）和价格。`has_api_key` '
                                                                                                                                                                                                                                                                                                            '表示是否保存了密钥；密钥本身从不返回。任何成员都可以查看。',
 "The workspace's defaults for the intervals new runs report: method (bootstrap or none), iterations, confidence, min_sample, exact_garak and seed. A run's own `interval` overrides them.": '工作空间对新运行所报告区间的默认设置：method（bootstrap '
                                                                                                                                                                                             '或 '
                                                                                                                                                                                             'none）、iterations、confidence、min_sample、exact_garak '
                                                                                                                                                                                             '和 '
                                                                                                                                                                                             'seed。运行自己的 '
                                                                                                                                                                                             '`interval` '
                                                                                                                                                                                             '会覆盖它们。',
 "The workspace's evaluation sets, most recently changed first, with their columns, the draft's row count and the latest version. Filters: `q` (text in the name or description) and `tag`. Deleted sets are not listed.": '工作空间的评测集，最近修改的在前，附带列、草稿的行数和最新版本。筛选：`q`（名称或描述中的文字）和 '
                                                                                                                                                                                                                           '`tag`。不列出已删除的评测集。',
 "The workspace's evaluators, most recently updated first, each with its latest version. Filters: `q` (text in the name or description), `kind` (llm or code), `tag`, `creator` (a username) and `deleted=true` (the deleted ones instead of the live ones); `sort` is updated, name or created, and a leading - reverses it.": '工作空间的评估器，最近更新的在前，每个附带其最新版本。筛选：`q`（名称或描述中的文字）、`kind`（llm '
                                                                                                                                                                                                                                                                                                                                '或 '
                                                                                                                                                                                                                                                                                                                                'code）、`tag`、`creator`（用户名）和 '
                                                                                                                                                                                                                                                                                                                                '`deleted=true`（列出已删除的而不是现有的）；`sort` '
                                                                                                                                                                                                                                                                                                                                '为 '
                                                                                                                                                                                                                                                                                                                                'updated、name '
                                                                                                                                                                                                                                                                                                                                '或 '
                                                                                                                                                                                                                                                                                                                                'created，前加 '
                                                                                                                                                                                                                                                                                                                                '- '
                                                                                                                                                                                                                                                                                                                                '表示倒序。',
 'The workspace\'s experiments, newest first, with status, progress and counts. Filters: `status` (draft, queued, running, completed, failed or cancelled) and `evalset` (an evalset or evalset version id, or "name" or "name@version"). 400 names a filter that cannot match anything.': '工作空间的实验，最新的在前，附带状态、进度和计数。筛选：`status`（draft、queued、running、completed、failed '
                                                                                                                                                                                                                                                                                           '或 '
                                                                                                                                                                                                                                                                                           'cancelled）和 '
                                                                                                                                                                                                                                                                                           '`evalset`（评测集或评测集版本的 '
                                                                                                                                                                                                                                                                                           'id，或 '
                                                                                                                                                                                                                                                                                           '"name"、"name@version"）。某个筛选条件不可能匹配时返回 '
                                                                                                                                                                                                                                                                                           '400 '
                                                                                                                                                                                                                                                                                           '并指明它。',
 "The workspace's garak imports, newest first: status (queued, running, completed or failed), probes done of the report's probes, the experiments made so far, and the reason of a failed one.": '工作空间的 '
                                                                                                                                                                                                 'garak '
                                                                                                                                                                                                 '导入，最新的在前：状态（queued、running、completed '
                                                                                                                                                                                                 '或 '
                                                                                                                                                                                                 'failed）、已完成的探针数与报告中的探针总数、目前已创建的实验，以及失败导入的原因。',
 "The workspace's members with their role: owner (manages members, secrets and model providers), editor (creates and runs evaluators, evalsets and experiments) or viewer (reads). Any member may list them.": '工作空间的成员及其角色：所有者（管理成员、密钥和模型服务）、编辑者（创建并运行评估器、评测集和实验）或查看者（只读）。任何成员都可以查看。',
 "The workspace's named secrets with the last characters of each value (`hint`) and the origins each may be sent to; values are never returned. Any member may list them.": '工作空间的命名密钥，附带每个值的末尾几个字符（`hint`）以及各自可发送到的源；从不返回值本身。任何成员都可以查看。',
 "The workspace's named secrets with the last characters of each value (`hint`); values are never returned. Any member may list them.": '工作空间的命名密钥，附带每个值的末尾几个字符（`hint`）；从不返回值本身。任何成员都可以查看。',
 "The workspace's pairwise runs, newest first, with their experiments, judge and progress. Filter with `status` (queued, running, completed, failed or cancelled); 400 for an unknown status.": '工作空间的成对运行，最新的在前，附带其实验、评判模型和进度。用 '
                                                                                                                                                                                                '`status`（queued、running、completed、failed '
                                                                                                                                                                                                '或 '
                                                                                                                                                                                                'cancelled）筛选；未知状态返回 '
                                                                                                                                                                                                '400。',
 'There are no failed rows to retry.': '没有可重试的失败行。',
 'There were too many wrong passwords for this account from your address, so signing in from here is paused for 15 minutes. Other accounts are not affected.': '你的地址对该账号输错密码的次数过多，因此从这里登录已暂停 '
                                                                                                                                                               '15 '
                                                                                                                                                               '分钟。其他账号不受影响。',
 "These intervals treat each repetition as an independent row, so they are narrower than the card's clustered one; they are clustered by row once the run's numbers are recomputed.": '这些区间把每次重复当作独立的行，因此比卡片上按行聚类的区间窄；重新计算运行的数据后，它们也会按行聚类。',
 "They compare two experiments' outputs: use them in a pairwise run, not here.": '它们比较两个实验的输出：请在成对运行中使用，不要在这里使用。',
 "They read a whole conversation: a Conversation column or the simulated user's chat.": '它们读取整段对话：对话类型的列，或模拟用户的对话。',
 'They read the scores of an imported garak scan.': '它们读取导入的 garak 扫描的分数。',
 'This evaluation set is deleted.': '此评测集已删除。',
 'This evaluator declares no variables.': '此评估器没有声明变量。',
 'This evaluator did not score this row (its row filter left it out, or the run stopped first).': '此评估器没有为这一行打分（其行筛选排除了它，或运行提前停止了）。',
 'This evaluator is deleted; restore it first.': '此评估器已删除；请先恢复。',
 'This evaluator is not in the experiment.': '此评估器不在实验中。',
 'This evaluator version is already in the experiment.': '此评估器版本已在实验中。',
 'This experiment has no evaluator %s.': '此实验没有评估器 %s。',
 "This experiment's outputs are computed by its target.": '此实验的输出由其评测对象计算。',
 'This garak run is being imported already: here is that import.': '此 garak 运行已在导入中：这是该导入。',
 'This garak run was imported before: nothing new was made. Its experiments:': '此 garak '
                                                                               '运行之前已导入：没有创建新内容。其实验：',
 'This garak run was imported before: nothing new was made; here it is.': '此 garak '
                                                                          '运行之前已导入：没有创建新内容；这是之前的导入。',
 'This import is already %(status)s.': '此导入已经是 %(status)s 状态。',
 'This invitation cannot be used': '此邀请无法使用',
 'This invitation was used, withdrawn or has expired.': '此邀请已被使用、已撤回或已过期。',
 'This page link is not valid; start again.': '此分页链接无效，请从头开始。',
 'This row in the evaluation set': '评测集中的这一行',
 'This run did not score this row.': '此运行没有为这一行打分。',
 'This run joins the trend once it completes.': '此运行完成后会加入趋势。',
 'This run scores each range of rows as soon as its outputs are pushed. Rows never pushed are scored unknown when the run is closed.': '每批行的输出一推送，此运行就为其打分。运行关闭时，从未推送的行记为未知。',
 'This run waits until a worker starts; it then picks the run up where it is.': '此运行会等待工作进程启动；启动后从当前进度接着运行。',
 'This workspace has no committed evalset version yet.': '此工作空间还没有已提交的评测集版本。',
 'This workspace has no submitted evaluator version yet.': '此工作空间还没有已提交的评估器版本。',
 'Threshold': '阈值',
 'Threshold %(threshold)s, not checked: the report has no eval entries to check it against.': '阈值 '
                                                                                              '%(threshold)s，未经核对：报告中没有可用于核对的 '
                                                                                              'eval '
                                                                                              '条目。',
 "Threshold %(threshold)s: any value in %(bounds)s gives garak's eval counts.": '阈值 '
                                                                                '%(threshold)s：%(bounds)s '
                                                                                '内的任何值都能得到 garak 的 '
                                                                                'eval 计数。',
 'Threshold (optional)': '阈值（可选）',
 'Throughput': '吞吐量',
 'Tick at least one evaluator version: each of its variables then gets a dropdown of the columns.': '至少勾选一个评估器版本：之后它的每个变量都会有一个列的下拉框。',
 'Ties': '平局',
 "Ties excluded: the rate is B's share of the pairs one side won; ties are left out.": '排除平局：胜率是 B '
                                                                                       '在有一方获胜的配对中所占的比例；平局不计入。',
 'Ties split: a tie counts as half a win for each side, so every judged pair counts.': '平局平分：平局算双方各赢一半，因此每个已评判的配对都计入。',
 'Time limit (s)': '时间限制（秒）',
 'Timeout (s)': '超时（秒）',
 'Token name': '令牌名称',
 'Token revoked.': '令牌已吊销。',
 'Tokens in / out': '输入 / 输出 Token',
 'Tokens per minute (optional)': '每分钟 Token 数（可选）',
 'Too many failed sign-ins': '登录失败次数过多',
 'Tool call': '工具调用',
 'Top P': 'Top P',
 'Total': '合计',
 'Total:': '合计：',
 'Total: <strong>%(cost)s</strong>': '合计：<strong>%(cost)s</strong>',
 'Trajectory': '轨迹',
 'Trajectory (JMESPath)': '轨迹（JMESPath）',
 'Trajectory (JMESPath, optional)': '轨迹（JMESPath，可选）',
 'Trends': '趋势',
 'Try another filter.': '试试其他筛选条件。',
 'Try other filters.': '试试其他筛选条件。',
 'Turn': '轮次',
 'Turn %(n)s': '轮次 %(n)s',
 'Turn intervals resample conversations with all their turns together (clustered by row): the turns of one conversation are not independent.': '轮次区间把一段对话及其所有轮次一起重采样（按行聚类）：同一段对话的各轮并不独立。',
 'Turns': '轮次',
 'Turns as JSON': '以 JSON 编辑轮次',
 'Turns at most': '最多轮数',
 'Turns passed': '通过的轮次',
 'Turns per conversation': '每段对话的轮数',
 'Two bodies. `{data, tags?, human_verdict?, label?}` adds one row to the draft (201); `data` is {column: text or content object}. `{create: [...], update: [{item_id, ...}], delete: [item_id, ...]}` makes up to 5,000 changes in one all-or-nothing call (200): when any change is invalid nothing is saved, and 400 names every problem by its path (e.g. `create[2].data.question`).': '两种请求体。`{data, '
                                                                                                                                                                                                                                                                                                                                                                                            'tags?, '
                                                                                                                                                                                                                                                                                                                                                                                            'human_verdict?, '
                                                                                                                                                                                                                                                                                                                                                                                            'label?}` '
                                                                                                                                                                                                                                                                                                                                                                                            '向草稿添加一行（201）；`data` '
                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                            '{列: '
                                                                                                                                                                                                                                                                                                                                                                                            '文本或内容对象}。`{create: '
                                                                                                                                                                                                                                                                                                                                                                                            '[...], '
                                                                                                                                                                                                                                                                                                                                                                                            'update: '
                                                                                                                                                                                                                                                                                                                                                                                            '[{item_id, '
                                                                                                                                                                                                                                                                                                                                                                                            '...}], '
                                                                                                                                                                                                                                                                                                                                                                                            'delete: '
                                                                                                                                                                                                                                                                                                                                                                                            '[item_id, '
                                                                                                                                                                                                                                                                                                                                                                                            '...]}` '
                                                                                                                                                                                                                                                                                                                                                                                            '在一次全有或全无的调用中最多做 '
                                                                                                                                                                                                                                                                                                                                                                                            '5,000 '
                                                                                                                                                                                                                                                                                                                                                                                            '处修改（200）：任何一处无效都不会保存，返回 '
                                                                                                                                                                                                                                                                                                                                                                                            '400 '
                                                                                                                                                                                                                                                                                                                                                                                            '并按路径指明每个问题（例如 '
                                                                                                                                                                                                                                                                                                                                                                                            '`create[2].data.question`）。',
 'Two new columns are called %(name)r.': '有两个新列都叫 %(name)r。',
 'Two new items name the same item id.': '两个新数据项使用了相同的数据项 id。',
 'Two outputs, judged in both orders': '两个输出，按两种顺序评判',
 'Type': '类型',
 'Type (new columns)': '类型（新列）',
 'Type annotations, dataclasses and enums work; files, network and other modules do not.': '可以使用类型注解、dataclasses '
                                                                                           '和 '
                                                                                           'enum；不能使用文件、网络和其他模块。',
 'Type of the new column': '新列的类型',
 'USD per million tokens by model, for cost figures: {"gpt-4o": {"input": 2.5, "output": 10}}. Leave empty when unknown.': '按模型填写每百万 '
                                                                                                                           'Token '
                                                                                                                           '的美元价格，用于计算成本：{"gpt-4o": '
                                                                                                                           '{"input": '
                                                                                                                           '2.5, '
                                                                                                                           '"output": '
                                                                                                                           '10}}。不清楚时留空。',
 'UTF-8 with BOM': 'UTF-8（带 BOM）',
 'Undoes a delete; restoring a live evaluator changes nothing. 400 when a live evaluator has taken its name meanwhile: rename that one first.': '撤销删除；恢复一个现有的评估器不会有任何变化。若在此期间已有现有评估器使用了它的名称，返回 '
                                                                                                                                                '400：请先重命名那个评估器。',
 'Unknown': '未知',
 'Unknown content type %(ctype)r; expected one of %(content_types)s.': '未知的内容类型 %(ctype)r；应为 '
                                                                       '%(content_types)s 之一。',
 'Unknown export format': '未知的导出格式',
 'Unknown field(s): %(f)s.': '未知字段：%(f)s。',
 'Unknown format %(file_format)r; use csv or jsonl.': '未知格式 %(file_format)r；请使用 csv 或 jsonl。',
 'Unknown or read-only field.': '未知字段或只读字段。',
 "Unknown part type %(type)r; expected 'text' or 'multi_part_variable'.": '未知的片段类型 %(type)r；应为 '
                                                                          "'text' 或 "
                                                                          "'multi_part_variable'。",
 'Unknown policy field(s): %(unknown)s.': '未知的策略字段：%(unknown)s。',
 'Unknown policy kind %(kind)r; use %(kinds)s.': '未知的策略类型 %(kind)r；请使用 %(kinds)s。',
 'Unknown prompt language %(value)r: use one of %(choices)s.': '未知的提示词语言 %(value)r：请使用 %(choices)s '
                                                               '之一。',
 'Unknown role %(role)r; use owner, editor or viewer.': '未知角色 %(role)r；请使用 owner、editor 或 viewer。',
 'Unknown score meaning %(score_meaning)r; use quality or risk.': '未知的分数含义 %(score_meaning)r；请使用 '
                                                                  'quality 或 risk。',
 'Unknown verdict %(verdict)r; use pass, fail or unknown.': '未知的判定 %(verdict)r；请使用 pass、fail 或 '
                                                            'unknown。',
 "Up to 1,000 outputs a request, each with its row's <code>item_id</code> (the first row's shown); an API token in <code>ASSAY_TOKEN</code>.": '每个请求最多 '
                                                                                                                                               '1,000 '
                                                                                                                                               '个输出，每个带上所在行的 '
                                                                                                                                               '<code>item_id</code>（示例为第一行的）；API '
                                                                                                                                               '令牌放在 '
                                                                                                                                               '<code>ASSAY_TOKEN</code> '
                                                                                                                                               '中。',
 'Up to 10 rows; columns fill the variables of the same name. Edit them before running.': '最多 10 '
                                                                                          '行；列会填入同名的变量。运行前可以修改。',
 'Update a model provider': '更新模型服务',
 'Updated': '更新于',
 'Upload': '上传',
 'Upload a CSV or JSONL file': '上传 CSV 或 JSONL 文件',
 'Upload a garak reference file': '上传 garak 参考文件',
 'Upload a media file': '上传媒体文件',
 'Upload and map columns': '上传并映射列',
 'Uploaded': '上传于',
 'Uploads a CSV or JSONL `file` (multipart) and queues its import into the draft (202); poll Get an import. `format` comes from the file name unless given; `encoding` is utf-8 (default), utf-8-sig, gb18030 or latin-1. `mapping` is {file field: column, "@tags", "@human_verdict", "@label", or "" to ignore it}; without one, fields fill columns of the same name or a usual synonym (question or 问题 → input, answer or 参考答案 → reference_output, tag or 标签 → @tags), and a set without columns gets a column per field (a header that is not a valid name gets a readable one: 问题 → input, 用户满意度 → yong_hu_man_yi_du). Every field must be mapped or ignored, and at least one must fill a column (an existing one, if the set has columns): an import that would store nothing is a 400. `new_columns` [{name, content_type, description}] adds columns; `skip_bad_rows` imports the good rows when some are bad (otherwise nothing is imported); `replace` replaces the draft\'s rows. 400 names the field: an unknown format, an empty or oversized file, a file that is not in the chosen encoding (with a guess of the right one), or the mapping\'s problems.': '上传 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'CSV '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'JSONL '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`file`（multipart），并将导入草稿的任务排队（202）；轮询“获取导入”。未给出 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`format` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '时由文件名判断；`encoding` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'utf-8（默认）、utf-8-sig、gb18030 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'latin-1。`mapping` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '{文件字段: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '列、"@tags"、"@human_verdict"、"@label"，或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '"" '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '表示忽略}；没有映射时，字段填入同名列或常用同义名的列（question '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '问题 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '→ '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'input，answer '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '参考答案 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '→ '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'reference_output，tag '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '标签 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '→ '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '@tags），没有列的评测集为每个字段建一列（不是有效列名的表头会得到一个易读的名称：问题 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '→ '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'input，用户满意度 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '→ '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'yong_hu_man_yi_du）。每个字段都必须映射或忽略，且至少一个要填入某一列（评测集已有列时须为已有的列）：什么都不会保存的导入返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '400。`new_columns` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '[{name, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'content_type, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'description}] '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '用于添加列；`skip_bad_rows` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '在有错误行时导入正确的行（否则什么都不导入）；`replace` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '替换草稿的行。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '时会指明字段：未知格式、空文件或文件过大、文件不是所选编码（并附上对正确编码的猜测），或映射的问题。',
 'Uploads a CSV or JSONL `file` (multipart) and queues its import into the draft (202); poll Get an import. `format` comes from the file name unless given; `encoding` is utf-8 (default), utf-8-sig, gb18030 or latin-1. `mapping` is {file field: column, "@tags", "@human_verdict", "@label", or "" to ignore it}; without one, fields map to same-named columns. Every field must be mapped or ignored, and at least one must map to an existing column. `new_columns` [{name, content_type}] adds columns; `skip_bad_rows` imports the good rows when some are bad (otherwise nothing is imported); `replace` replaces the draft\'s rows. 400 names the field: an unknown format, an empty or oversized file, a file that is not in the chosen encoding (with a guess of the right one), or the mapping\'s problems.': '上传 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'CSV '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'JSONL '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`file`（multipart），并将导入草稿的任务排队（202）；轮询“获取导入”。未给出 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '`format` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '时由文件名判断；`encoding` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'utf-8（默认）、utf-8-sig、gb18030 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'latin-1。`mapping` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '{文件字段: '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '列、"@tags"、"@human_verdict"、"@label"，或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '"" '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '表示忽略}；没有映射时，字段映射到同名列。每个字段都必须映射或忽略，且至少一个要映射到已有的列。`new_columns` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '[{name, '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            'content_type}] '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '用于添加列；`skip_bad_rows` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '在有错误行时导入正确的行（否则什么都不导入）；`replace` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '替换草稿的行。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            '时会指明字段：未知格式、空文件或文件过大、文件不是所选编码（并附上对正确编码的猜测），或映射的问题。',
 "Uploads a CSV or JSONL `file` of rows (multipart) for the set `name` (default: the file's name without its extension). The rows are hashed (keys sorted, empty cells and item_id left out): a version of that set made from the same rows is returned as it is (200, `created` false). Otherwise the set is created when no live set has the name, the rows replace its draft (fields without a column become new columns) and are committed as the next patch version, 1.0.0 first (201, `created` true). Editors only. 400 names the problem and saves nothing: a file that is not CSV or JSONL, unreadable lines, no rows or no fields, more rows or bytes than a rows file may hold, or a draft with uncommitted changes.": '为评测集 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '`name`（默认：去掉扩展名的文件名）上传 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'CSV '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'JSONL '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '格式的行文件 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '`file`（multipart）。行会被计算哈希（键排序，不含空单元格和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'item_id）：若该评测集已有由相同行生成的版本，则原样返回该版本（200，`created` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'false）。否则，没有未删除的评测集使用此名称时会新建评测集，这些行替换其草稿（没有对应列的字段成为新列），并提交为下一个补丁版本，首个版本为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '1.0.0（201，`created` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'true）。仅限编辑者。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '时会指明问题且不保存任何内容：文件不是 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'CSV '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  '或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  'JSONL、有无法读取的行、没有行或没有字段、行数或字节数超过行文件的上限，或草稿有未提交的更改。',
 'Uploads a garak calibration (Z-score ratings for probe and detector names) or detector metrics file (sensitivity and specificity, for corrected intervals) as multipart `file`, JSON of at most 16 MB (201). 400 when the file is not JSON or not a garak reference file.': '以 '
                                                                                                                                                                                                                                                                              'multipart '
                                                                                                                                                                                                                                                                              '的 '
                                                                                                                                                                                                                                                                              '`file` '
                                                                                                                                                                                                                                                                              '上传 '
                                                                                                                                                                                                                                                                              'garak '
                                                                                                                                                                                                                                                                              '校准文件（按探针和检测器名称的 '
                                                                                                                                                                                                                                                                              'Z '
                                                                                                                                                                                                                                                                              '分数评级）或检测器指标文件（灵敏度和特异度，用于校正区间），为最多 '
                                                                                                                                                                                                                                                                              '16 '
                                                                                                                                                                                                                                                                              'MB '
                                                                                                                                                                                                                                                                              '的 '
                                                                                                                                                                                                                                                                              'JSON（201）。文件不是 '
                                                                                                                                                                                                                                                                              'JSON '
                                                                                                                                                                                                                                                                              '或不是 '
                                                                                                                                                                                                                                                                              'garak '
                                                                                                                                                                                                                                                                              '参考文件时返回 '
                                                                                                                                                                                                                                                                              '400。',
 "Uploads a garak report.jsonl (multipart `file`, at most 64 MB). For each probe it commits a new version of the probe's evalset, makes an evaluator per detector and launches an experiment that scores garak's own detector results (202, the list of experiments). 400 when the file is too large, has a line that is not a JSON object, or holds no scored attempts.": '上传 '
                                                                                                                                                                                                                                                                                                                                                                           'garak '
                                                                                                                                                                                                                                                                                                                                                                           '的 '
                                                                                                                                                                                                                                                                                                                                                                           'report.jsonl（multipart '
                                                                                                                                                                                                                                                                                                                                                                           '的 '
                                                                                                                                                                                                                                                                                                                                                                           '`file`，最多 '
                                                                                                                                                                                                                                                                                                                                                                           '64 '
                                                                                                                                                                                                                                                                                                                                                                           'MB）。对每个探针，提交该探针评测集的一个新版本，为每个检测器建一个评估器，并启动一个实验为 '
                                                                                                                                                                                                                                                                                                                                                                           'garak '
                                                                                                                                                                                                                                                                                                                                                                           '自己的检测结果打分（202，返回实验列表）。文件过大、有一行不是 '
                                                                                                                                                                                                                                                                                                                                                                           'JSON '
                                                                                                                                                                                                                                                                                                                                                                           '对象或没有已打分的尝试时返回 '
                                                                                                                                                                                                                                                                                                                                                                           '400。',
 "Uploads a garak report.jsonl (multipart `file`, at most ASSAY_GARAK_MAX_REPORT_BYTES, 64 MB by default) and checks it in the request; a worker then imports it probe by probe: for each probe a new version of the probe's evalset (rows keyed by their prompt, so scans pair by prompt), an evaluator per detector and a launched experiment scoring garak's own detector results. Answers 202 with the import job and `poll_url` (Get a garak import). The threshold and confidence level are garak's, read from its eval entries; `threshold` (optional) must reproduce garak's counts. The same run imported before, or being imported, answers 200 with a job naming its experiments (`already`) or the import under way, and makes nothing. 400 names the problem, and nothing is stored: a file too large; more probes (ASSAY_GARAK_MAX_PROBES, 50), scored attempts or outputs than one import takes, or a probe with more than 20 detectors; a line that is not JSON, nested too deeply, not an object, or not a garak attempt or eval entry (by line number); no scored attempts; counts no threshold reproduces; or a report cut before its `completion` entry (`partial=true` imports what it holds, marked partial).": '上传 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'report.jsonl（multipart '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '的 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '`file`，最多 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'ASSAY_GARAK_MAX_REPORT_BYTES，默认 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '64 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'MB），并在请求中检查；随后由工作进程逐个探针导入：每个探针生成该探针评测集的一个新版本（行以提示词为键，因此多次扫描按提示词配对）、每个检测器一个评估器，以及一个已启动的实验，为 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '自己的检测结果打分。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '202，附导入任务和 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '`poll_url`（获取 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '导入）。阈值和置信水平沿用 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '的，从其 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'eval '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '条目读出；`threshold`（可选）必须能重现 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '的计数。同一运行已导入过或正在导入时返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '200，附一个列出其实验（`already`）或指向进行中导入的任务，不创建任何内容。返回 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '400 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '时会指明问题，且不保存任何内容：文件过大；探针（ASSAY_GARAK_MAX_PROBES，50）、已打分的尝试或输出超过一次导入的上限，或某个探针有超过 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '20 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '个检测器；某一行不是 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'JSON、嵌套过深、不是对象，或不是 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'garak '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '的尝试或 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      'eval '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '条目（按行号指明）；没有已打分的尝试；计数无法由任何阈值重现；或报告在 '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '`completion` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '条目之前被截断（`partial=true` '
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      '会导入其中已有的内容，并标记为部分）。',
 "Uploads an image or audio file (multipart `file`; `content_type` Image or Audio to refuse the other kind) and returns its content object, to put in a row's data (201). The type is read from the file's bytes, not its name. 400 when the file is over the size limit, is not a known image or audio format, or is not the kind asked for.": '上传图片或音频文件（multipart '
                                                                                                                                                                                                                                                                                                                                                '的 '
                                                                                                                                                                                                                                                                                                                                                '`file`；`content_type` '
                                                                                                                                                                                                                                                                                                                                                '为 '
                                                                                                                                                                                                                                                                                                                                                'Image '
                                                                                                                                                                                                                                                                                                                                                '或 '
                                                                                                                                                                                                                                                                                                                                                'Audio '
                                                                                                                                                                                                                                                                                                                                                '时拒绝另一种），返回其内容对象，可放入某行的 '
                                                                                                                                                                                                                                                                                                                                                'data（201）。类型由文件字节判断，而不是文件名。文件超过大小上限、不是已知的图片或音频格式，或不是所要求的类型时返回 '
                                                                                                                                                                                                                                                                                                                                                '400。',
 'Usage, timeout, retries and rate limit': '用量、超时、重试和限流',
 'Use format=csv or format=jsonl.': '请使用 format=csv 或 format=jsonl。',
 'Use one of %(choices)s.': '请使用 %(choices)s 之一。',
 'Use one of %(formats)s.': '请使用 %(formats)s 之一。',
 'Use one of %(methods)s.': '请使用 %(methods)s 之一。',
 'Use pass, fail, unknown (or empty to undo).': '请使用 pass、fail、unknown（或留空以撤销）。',
 'Use {{%(name)s}} in a message: the judge must see it.': '请在消息中使用 {{%(name)s}}：评判模型必须看到它。',
 'Use {{column}} to insert a Text column of the row, e.g. {{input}}.': '用 {{列名}} 插入该行的一个 Text 列，例如 '
                                                                       '{{input}}。',
 'Used by the threshold policy.': '由阈值策略使用。',
 'Used in page URLs: letters, digits and hyphens. Left empty, it is made from the name (a short random one for a name in Chinese).': '用于页面 '
                                                                                                                                     'URL：字母、数字和连字符。留空时由名称生成（中文名称会生成一个简短的随机 '
                                                                                                                                     'slug）。',
 'User': '用户',
 'User message': '用户消息',
 'Username': '用户名',
 'Value': '值',
 'Values an HTTP target sends in its headers, written as {{secrets.NAME}} (for example Authorization: Bearer {{secrets.APP_TOKEN}}). They are encrypted, never shown, never stored in results, and sent only to the origins listed for each: a target whose URL is elsewhere is refused.': 'HTTP '
                                                                                                                                                                                                                                                                                           '评测对象在请求头中发送的值，写作 '
                                                                                                                                                                                                                                                                                           '{{secrets.NAME}}（例如 '
                                                                                                                                                                                                                                                                                           'Authorization: '
                                                                                                                                                                                                                                                                                           'Bearer '
                                                                                                                                                                                                                                                                                           '{{secrets.APP_TOKEN}}）。它们经过加密，从不显示，从不保存在结果中，只发送到为每个密钥列出的源：URL '
                                                                                                                                                                                                                                                                                           '指向其他地方的评测对象会被拒绝。',
 'Values an HTTP target sends in its headers, written as {{secrets.NAME}} (for example Authorization: Bearer {{secrets.APP_TOKEN}}). They are encrypted, never shown, never stored in results, and sent only to the target that names them.': 'HTTP '
                                                                                                                                                                                                                                              '评测对象在请求头中发送的值，写作 '
                                                                                                                                                                                                                                              '{{secrets.NAME}}（例如 '
                                                                                                                                                                                                                                              'Authorization: '
                                                                                                                                                                                                                                              'Bearer '
                                                                                                                                                                                                                                              '{{secrets.APP_TOKEN}}）。它们经过加密，从不显示，从不保存在结果中，只发送给引用它们的评测对象。',
 'Variable': '变量',
 'Variable %(name)r %(what)s; this needs a Conversation variable.': '变量 %(name)r %(what)s；这里需要一个 '
                                                                    'Conversation 变量。',
 'Variable %(name)r is %(type)s; only Text and Conversation variables can go in {{...}}; use a multi_part_variable part for media.': '变量 '
                                                                                                                                     '%(name)r '
                                                                                                                                     '的类型是 '
                                                                                                                                     '%(type)s；只有 '
                                                                                                                                     'Text '
                                                                                                                                     '和 '
                                                                                                                                     'Conversation '
                                                                                                                                     '变量可以放进 '
                                                                                                                                     '{{...}}；媒体请用 '
                                                                                                                                     'multi_part_variable '
                                                                                                                                     '片段。',
 'Variable %(name)r is not declared in input_variables.': '变量 %(name)r 未在 input_variables 中声明。',
 'Verdict': '判定',
 'Verdict policy': '判定策略',
 'Version': '版本',
 'Version %(v)s': '版本 %(v)s',
 'Version %(v)s committed with %(n)s rows.': '版本 %(v)s 已提交，共 %(n)s 行。',
 'Version %(v)s is being committed: its %(n)s rows are copied in the background. The draft cannot be changed until the copy has finished.': '版本 '
                                                                                                                                            '%(v)s '
                                                                                                                                            '正在提交：其 '
                                                                                                                                            '%(n)s '
                                                                                                                                            '行正在后台复制。复制完成前不能修改草稿。',
 'Version %(v)s is still being committed (%(done)s of %(total)s rows copied); the draft can be changed again when the commit has finished.': '版本 '
                                                                                                                                             '%(v)s '
                                                                                                                                             '仍在提交中（已复制 '
                                                                                                                                             '%(done)s '
                                                                                                                                             '/ '
                                                                                                                                             '%(total)s '
                                                                                                                                             '行）；提交完成后才能再次修改草稿。',
 'Version %(v)s of %(set)s is still being committed (%(done)s of %(total)s rows copied); an experiment can use it when the commit has finished.': '%(set)s '
                                                                                                                                                  '的版本 '
                                                                                                                                                  '%(v)s '
                                                                                                                                                  '仍在提交中（已复制 '
                                                                                                                                                  '%(done)s '
                                                                                                                                                  '/ '
                                                                                                                                                  '%(total)s '
                                                                                                                                                  '行）；提交完成后实验才能使用它。',
 'Version %(v)s restored into the draft. Save edits or submit it as a new version.': '已将版本 %(v)s '
                                                                                     '恢复到草稿。请保存修改，或将其提交为新版本。',
 'Version %(v)s submitted.': '版本 %(v)s 已提交。',
 'Version %(v)s · %(n)s rows · read-only': '版本 %(v)s · %(n)s 行 · 只读',
 'Version %(version)s already exists in this set.': '此评测集中已存在版本 %(version)s。',
 'Versions': '版本',
 'Viewer': '查看者',
 'Waiting for a worker to start the import…': '正在等待工作进程开始导入…',
 'Waiting for the column mapping': '等待列映射',
 'Waiting for your outputs': '正在等待你的输出',
 'Welcome to %(name)s.': '欢迎加入 %(name)s。',
 'When every output is in, or to stop waiting:': '所有输出都推送完毕，或不想再等待时：',
 'Where actual_output is in the answer, e.g. answer; empty: the whole body.': 'actual_output '
                                                                              '在回答中的位置，例如 '
                                                                              'answer；留空：整个响应体。',
 "Where the judge's other variables come from": '评判模型的其他变量从哪里来',
 'Which candidate the row diff shows.': '行差异显示哪个候选。',
 'Why': '原因',
 'Win rates': '胜率',
 'With repetitions, it resamples a row with all its repetitions together.': '有重复时，会把一行及其所有重复一起重采样。',
 'With three or more experiments every pair is judged and a leaderboard ranks them.': '有三个或更多实验时，每一对都会评判，并由排行榜给出排名。',
 "With threshold %(given)s the scores recorded in the report do not give garak's eval counts; the run's threshold lies in %(bounds)s.": '使用阈值 '
                                                                                                                                        '%(given)s '
                                                                                                                                        '时，报告中记录的分数得不到 '
                                                                                                                                        'garak '
                                                                                                                                        '的 '
                                                                                                                                        'eval '
                                                                                                                                        '计数；该运行的阈值位于 '
                                                                                                                                        '%(bounds)s '
                                                                                                                                        '内。',
 'Withdraw': '撤回',
 'Won · lost · tied': '胜 · 负 · 平',
 'Workspace': '工作空间',
 'Workspace created.': '工作空间已创建。',
 'Write your own': '自己编写',
 'Write-only. Leave empty to keep the stored key.': '只写。留空则保留已保存的密钥。',
 'Write-only: stored encrypted and never shown again. Saving a name again replaces its value.': '只写：加密保存，之后不再显示。再次保存同一名称会替换其值。',
 'Write-only: stored encrypted and never shown again. Saving a name again replaces its value; leave it empty to keep the stored value.': '只写：加密保存，之后不再显示。再次保存同一名称会替换其值；留空则保留已保存的值。',
 'You are signed in as %(username)s.': '你已以 %(username)s 身份登录。',
 'Your endpoint (HTTP)': '你的端点（HTTP）',
 'Your first experiment in three steps': '三步完成你的第一个实验',
 'Your new token — copy it now, it will not be shown again:': '你的新令牌——请立即复制，之后不会再显示：',
 "Your own code computes each row's output and pushes it; the evaluators start on every range of rows as soon as its outputs are in. Rows never pushed are scored unknown (“no output”) when the run is closed.": '由你自己的代码计算每行的输出并推送；某一段行的输出一到，评估器就开始打分。运行关闭时，从未推送的行判为未知（“无输出”）。',
 'Your role in this workspace does not allow this.': '你在此工作空间中的角色不允许此操作。',
 "Your tokens for this workspace: name, key prefix, when each was created and last used, and whether it is revoked. Other members' tokens are not listed, and a key is never returned after its creation.": '你在此工作空间的令牌：名称、密钥前缀、创建和最近使用时间，以及是否已吊销。不会列出其他成员的令牌，密钥在创建之后也不会再返回。',
 "Your username and password didn't match. Please try again.": '用户名和密码不匹配，请重试。',
 'Zero tolerance': '零容忍',
 '`evaluator_id` whose rows the diff shows.': '行差异显示其行的 `evaluator_id`。',
 'a %(role)s message cannot have %(key)s': '%(role)s 消息不能有 %(key)s',
 'a Conversation has at most %(max)s messages, this one has %(count)s': 'Conversation 最多包含 %(max)s '
                                                                        '条消息，此处有 %(count)s 条',
 'a Conversation needs a non-empty list of messages': 'Conversation 需要非空的消息列表',
 'a MultiPart content has at most %(max)s parts': 'MultiPart 内容最多包含 %(max)s 个部分',
 "a MultiPart content needs a non-empty list 'multi_part'": "MultiPart 内容需要非空列表 'multi_part'",
 "a Text content needs a string 'text'": "Text 内容需要字符串 'text'",
 'a cell is larger than the %(limit)s-byte limit': '有单元格超过了 %(limit)s 字节的上限',
 "a detector's name is longer than %(max)s characters.": '有一个检测器的名称超过 %(max)s 个字符。',
 'a list': '列表',
 'a message is an object {role, content}, got %(got)s': '消息应是对象 {role, content}，实际为 %(got)s',
 'a number': '数字',
 'a phrase of 1–100 characters': '1–100 个字符的短语',
 'a string': '字符串',
 'a tool message cannot have tool_calls (assistant messages do)': 'tool 消息不能有 tool_calls（assistant '
                                                                  '消息才有）',
 'a tool message needs tool_call_id that an earlier assistant tool call declared': 'tool 消息需要 '
                                                                                   'tool_call_id，且须是前面的 '
                                                                                   'assistant '
                                                                                   '消息声明过的工具调用',
 'a tool message needs tool_call_id that an earlier assistant tool call declared (no call has id %(id)s)': 'tool '
                                                                                                           '消息需要 '
                                                                                                           'tool_call_id，且须是前面的 '
                                                                                                           'assistant '
                                                                                                           '消息声明过的工具调用（没有 '
                                                                                                           'id '
                                                                                                           '为 '
                                                                                                           '%(id)s '
                                                                                                           '的调用）',
 'active': '有效',
 'added': '新增',
 'against %(n)s earlier runs on this evalset': '相对于此评测集上之前的 %(n)s 次运行',
 'ago': '前',
 'agreed': '一致',
 'all pairs': '全部配对',
 'all rows': '全部行',
 'alpha %(alpha)s, max drop %(drop)s pts, max unknown rate %(unknown)s, min decided %(decided)d rows': 'alpha '
                                                                                                       '%(alpha)s，最大下降 '
                                                                                                       '%(drop)s '
                                                                                                       '个百分点，最大未知率 '
                                                                                                       '%(unknown)s，最少判定 '
                                                                                                       '%(decided)d '
                                                                                                       '行',
 'alpha is a significance level between 0 and 0.5 (e.g. 0.05).': 'alpha 是 0 到 0.5 之间的显著性水平（例如 '
                                                                 '0.05）。',
 'an %(type)s content needs %(key)s.url or %(key)s.uri': '%(type)s 内容需要 %(key)s.url 或 %(key)s.uri',
 'an %(type)s content needs an object %(key)s': '%(type)s 内容需要对象 %(key)s',
 'an assistant message cannot have tool_call_id (tool messages do)': 'assistant 消息不能有 '
                                                                     'tool_call_id（tool 消息才有）',
 'an object': '对象',
 'an output is neither text nor a message.': '有一个输出既不是文本也不是消息。',
 'any': '任意',
 'any change': '有变化的行',
 'applies_to is an object with tags and/or column.': 'applies_to 是一个带有 tags 和/或 column 的对象。',
 'assistant': 'assistant',
 'at most %(m)s': '最多 %(m)s',
 'at most %(max)s tags per row, got %(count)s': '每行最多 %(max)s 个标签，实际为 %(count)s 个',
 'at most 200 characters': '最多 200 个字符',
 'baseline': '基线',
 'better': '更好',
 'by %(who)s, %(when)s': '%(who)s · %(when)s',
 'by %(who)s, %(when)s ago': '%(who)s · %(when)s前',
 'cached': '已缓存',
 'cancelled': '已取消',
 'cancelling': '取消中',
 'cannot become a column': '不能成为列',
 'choose evaluators in step 3': '请在第 3 步选择评估器',
 'choose the set, a target if your app should answer, and the evaluators; then launch.': '选择评测集、评估器，需要你的应用作答时再选择评测对象；然后启动。',
 'chunks %(d)s/%(t)s': '分块 %(d)s/%(t)s',
 'cloned from': '克隆自',
 'code evaluators': '代码评估器',
 'column %(name)r already exists': '列 %(name)r 已存在',
 'column %(name)r appears twice': '列 %(name)r 出现了两次',
 'column %(name)r is required but no field maps to it': '列 %(name)r 为必填，但没有字段映射到它',
 'column %(name)s was added meanwhile with another type': '列 %(name)s 已在此期间以另一种类型添加',
 'committing … %(done)s of %(total)s rows': '提交中…… %(done)s / %(total)s 行',
 'compare': '对比',
 'completed': '已完成',
 'connected': '已连接',
 'connected; %(n)d model listed': ['已连接；列出了 %(n)d 个模型'],
 'content must be a string (null only for an assistant message with tool_calls), got %(got)s': 'content '
                                                                                               '必须是字符串（仅带有 '
                                                                                               'tool_calls '
                                                                                               '的 '
                                                                                               'assistant '
                                                                                               '消息可为 '
                                                                                               'null），实际为 '
                                                                                               '%(got)s',
 "content needs a url or an uploaded file's uri.": '内容需要 url 或已上传文件的 uri。',
 'content_type must be one of %(content_types)s, got %(content_type)r': 'content_type 必须是 '
                                                                        '%(content_types)s 之一，实际为 '
                                                                        '%(content_type)r',
 'content_type must be one of %(content_types)s, got %(content_type)s': 'content_type 必须是 '
                                                                        '%(content_types)s 之一，实际为 '
                                                                        '%(content_type)s',
 'content_type of %(name)r must be one of %(content_types)s': '%(name)r 的 content_type 必须是 '
                                                              '%(content_types)s 之一',
 'corrected · was %(v)s': '已修正 · 原为 %(v)s',
 'corrected · was %(was)s': '已修正 · 原为 %(was)s',
 'could not connect: %(error)s': '无法连接：%(error)s',
 'current: %(name)s': '当前：%(name)s',
 'data is an object {column: value}.': 'data 是一个对象 {列: 值}。',
 'deleted': '已删除',
 'description': '描述',
 'description is text of at most %(description_cap)s characters': '描述是最多 %(description_cap)s '
                                                                  '个字符的文本',
 'detach %(name)s': '移除 %(name)s',
 'detector_results is not an object.': 'detector_results 不是对象。',
 'disagreed': '不一致',
 'done': '完成',
 'done: a committed version is ready.': '已完成：已有提交的版本。',
 'done: a submitted version is ready.': '已完成：已有提交的版本。',
 'download': '下载',
 'draft': '草稿',
 'draft changed': '草稿有改动',
 'draft differs from the latest version': '草稿与最新版本不同',
 "e.g. %(example)s — its templates may use {{conversation}} (the chat so far) and {{message}} (the user's latest message).": '例如 '
                                                                                                                             '%(example)s '
                                                                                                                             '—— '
                                                                                                                             '其模板可以使用 '
                                                                                                                             '{{conversation}}（到目前为止的对话）和 '
                                                                                                                             '{{message}}（用户的最新消息）。',
 'e.g. {"Authorization": "Bearer {{secrets.APP_TOKEN}}"} — secrets from Settings.': '例如 '
                                                                                    '{"Authorization": '
                                                                                    '"Bearer '
                                                                                    '{{secrets.APP_TOKEN}}"} '
                                                                                    '—— 密钥来自“设置”。',
 'e.g. {"message": "{{message}}", "history": "{{conversation}}"}: {{message}} is the user\'s latest message, {{conversation}} the chat so far (OpenAI messages), and any {{column}} of the row.': '例如 '
                                                                                                                                                                                                  '{"message": '
                                                                                                                                                                                                  '"{{message}}", '
                                                                                                                                                                                                  '"history": '
                                                                                                                                                                                                  '"{{conversation}}"}：{{message}} '
                                                                                                                                                                                                  '是用户的最新消息，{{conversation}} '
                                                                                                                                                                                                  '是到目前为止的对话（OpenAI '
                                                                                                                                                                                                  '消息格式），也可使用该行的任意 '
                                                                                                                                                                                                  '{{列名}}。',
 'e.g. {"question": "{{input}}", "n": "{{n | number}}"}; empty for no body.': '例如 {"question": '
                                                                              '"{{input}}", "n": '
                                                                              '"{{n | '
                                                                              'number}}"}；留空表示没有请求体。',
 'each column is an object {name, content_type, description, required}': '每一列都是一个对象 {name, '
                                                                         'content_type, '
                                                                         'description, required}',
 'each line must be a JSON object, got a %(type)s': '每一行都必须是 JSON 对象，实际是 %(type)s',
 'each pair judged %(k)s times': '每个配对评判 %(k)s 次',
 'error': '错误',
 'error must be text.': 'error 必须是文本。',
 'evaluator said %(v)s, score %(s)s': '评估器判为 %(v)s，分数 %(s)s',
 'every turn passes': '每个轮次都通过',
 'expected %(type)s content, got %(got)s': '需要 %(type)s 内容，实际为 %(got)s',
 'expected %(type)s content, got a JSON %(kind)s': '需要 %(type)s 内容，实际为 JSON %(kind)s',
 'expected an audio URL (http/https) or the path of an uploaded audio file, got %(got)s': '需要音频的 '
                                                                                          'URL（http/https）或已上传音频文件的路径，实际为 '
                                                                                          '%(got)s',
 'expected an image URL (http/https) or the path of an uploaded image file, got %(got)s': '需要图片的 '
                                                                                          'URL（http/https）或已上传图片文件的路径，实际为 '
                                                                                          '%(got)s',
 'ext maps names to strings.': 'ext 是名称到字符串的映射。',
 'ext maps strings to strings.': 'ext 是字符串到字符串的映射。',
 'fail': '未通过',
 'failed': '失败',
 'field %(field)r maps to %(target)r, which is not a column of the set': '字段 %(field)r 映射到 '
                                                                         '%(target)r，但它不是评测集的列',
 'field %(field)r: %(problem)s': '字段 %(field)r：%(problem)s',
 'field %(field)s maps to unknown column %(column)s': '字段 %(field)s 映射到了不存在的列 %(column)s',
 'first of %(n)s repetition': ['%(n)s 次重复中的第一次'],
 'first run shown': '显示的第一次运行',
 'for Excel': 'Excel 用',
 'garak %(kind)s stored.': '已保存 garak %(kind)s。',
 'garak calibration or detector metrics (.json)': 'garak 校准文件或检测器指标（.json）',
 'garak detectors': 'garak 检测器',
 'garak report (.report.jsonl)': 'garak 报告（.report.jsonl）',
 'garak run %(run)s': 'garak 运行 %(run)s',
 "garak's --eval_threshold for this run. garak does not write it into the report, so Assay reads it from garak's own counts; give it when you know it (it must reproduce those counts).": '此运行的 '
                                                                                                                                                                                          'garak '
                                                                                                                                                                                          '--eval_threshold。garak '
                                                                                                                                                                                          '不会把它写入报告，所以 '
                                                                                                                                                                                          'Assay '
                                                                                                                                                                                          '从 '
                                                                                                                                                                                          'garak '
                                                                                                                                                                                          '自己的计数中推算它；如果知道，请填写（它必须能重现这些计数）。',
 "garak's reference data": 'garak 的参考数据',
 'header cell %(n)s is empty': '第 %(n)s 个表头单元格为空',
 'here “A” is the output shown first: B’s': '这里的“A”是先展示的输出：即 B 的',
 'human verdict must be pass, fail or unknown, got %(got)s': '人工判定必须是 pass、fail 或 unknown，实际为 '
                                                             '%(got)s',
 'human: fail': '人工：未通过',
 'human: pass': '人工：通过',
 'import a CSV or JSONL file, or type rows, then commit a version.': '导入 CSV 或 JSONL '
                                                                     '文件，或手动录入行，然后提交一个版本。',
 'improvement': '改进',
 'improvements': '改进',
 'in %(name)s %(v)s ↗': '位于 %(name)s %(v)s ↗',
 'intervals are off for this run': '此运行关闭了区间',
 'is not declared': '未声明',
 "item_id is not a row of this experiment's evalset version.": 'item_id 不是此实验评测集版本中的行。',
 "items won: B %(b)s, A %(a)s (each item's majority)": '获胜的数据项：B %(b)s，A %(a)s（按每个数据项的多数）',
 'judge': '评判模型',
 'judge: fail': '评判：未通过',
 'judge: pass': '评判：通过',
 'just now': '刚刚',
 'label is longer than %(max)s characters': '标注超过 %(max)s 个字符',
 'label must be text': '标注必须是文本',
 'line %(line)s, column %(column)s: %(problem)s': '第 %(line)s 行，列 %(column)s：%(problem)s',
 'line %(line)s: %(problem)s': '第 %(line)s 行：%(problem)s',
 'line 1, column %(field)r: unknown column %(field)r; map it to a column of the set or choose to ignore it': '第 '
                                                                                                             '1 '
                                                                                                             '行第 '
                                                                                                             '%(field)r '
                                                                                                             '列：未知列 '
                                                                                                             '%(field)r；请将其映射到评测集的某一列，或选择忽略',
 'lowest score of the turns': '各轮次的最低分',
 'malformed CSV: %(error)s': 'CSV 格式错误：%(error)s',
 'malformed CSV: %(error)s (check the quoting of this row)': 'CSV 格式错误：%(error)s（请检查这一行的引号）',
 'malformed CSV: a quoted cell is never closed (unexpected end of data)': 'CSV '
                                                                          '格式错误：有一个带引号的单元格没有闭合（数据意外结束）',
 'mapping is an object {file field: target}.': 'mapping 是一个对象 {文件字段: 目标}。',
 'max_drop is a pass-rate drop in [0, 1) (e.g. 0.02 for 2 points).': 'max_drop 是 [0, 1) 内的通过率下降（例如 '
                                                                     '0.02 表示 2 个百分点）。',
 'max_unknown_rate is a share in [0, 1].': 'max_unknown_rate 是 [0, 1] 内的比例。',
 'mean over repetitions': '各次重复的平均值',
 'mean score of the turns': '各轮次的平均分',
 'message %(n)s': '第 %(n)s 条消息',
 'message %(number)s: %(problem)s': '第 %(number)s 条消息：%(problem)s',
 'min_decided is a number of rows, 0 or more.': 'min_decided 是行数，须为 0 或更大。',
 'n &lt; %(m)s': 'n &lt; %(m)s',
 'n = %(n)s < %(min)s: no interval': 'n = %(n)s < %(min)s：无区间',
 "n counts a tag's decided rows; a row with several tags counts under each.": 'n '
                                                                              '统计一个标签下已判定的行；带多个标签的行在每个标签下都计入。',
 'name': '名称',
 'new column %(name)r has no field mapped to it': '新列 %(name)r 没有映射到它的字段',
 'new_columns is a list of {name, content_type}.': 'new_columns 是 {name, content_type} 的列表。',
 'no JSON object found in the first lines': '前几行中没有找到 JSON 对象',
 'no detectable difference at n = %(n)s': 'n = %(n)s 时未检测到显著差异',
 'no evaluator ran in both runs, so nothing was compared': '没有评估器在两次运行中都运行过，因此没有可对比的内容',
 'no field of the file goes to a column, so every imported row would be empty; make at least one field a new column (and give it a name)': '文件中没有任何字段对应到列，导入的每一行都会是空的；请至少把一个字段设为新列（并为它命名）',
 'no field of the file maps to a column of the set (%(names)s); map at least one, or every imported row would be empty there': '文件中没有字段映射到评测集的列（%(names)s）；请至少映射一个，否则导入的每一行在这些列上都会是空的',
 'no file yet': '还没有文件',
 'no interval below n = %(m)s': 'n 低于 %(m)s 时无区间',
 'no intervals': '无区间',
 'no judged pair': '没有已评判的配对',
 'no output': '无输出',
 'no pass/fail pairs to compare': '没有可对比的通过/未通过配对',
 'no price known': '没有已知价格',
 'no regression (%(p)s)': '无退化（%(p)s）',
 'no uploaded file at %(uri)r': '%(uri)r 处没有已上传的文件',
 'none': '无',
 'none chosen yet': '尚未选择',
 'none: sent nowhere': '无：不发送到任何地方',
 "not %(encoding)s text: byte 0x%(byte)s at character %(column)s; choose the file's encoding or save it as UTF-8": '不是 '
                                                                                                                   '%(encoding)s '
                                                                                                                   '文本：第 '
                                                                                                                   '%(column)s '
                                                                                                                   '个字符处的字节 '
                                                                                                                   '0x%(byte)s；请选择文件的编码，或将其另存为 '
                                                                                                                   'UTF-8',
 'not enough history': '历史不足',
 'not in the rate': '不计入胜率',
 'not in this run': '不在此运行中',
 'not mapped': '未映射',
 'not scored': '未打分',
 'not valid JSON: %(error)s (character %(position)s)': '不是有效的 JSON：%(error)s（第 %(position)s 个字符）',
 'not valid JSON: %(error)s at character %(column)s': '不是有效的 JSON：第 %(column)s 个字符处 %(error)s',
 'nothing evaluated': '没有评估任何内容',
 'nothing to compare yet': '还没有可对比的内容',
 'of %(n)s decided': ['基于 %(n)s 行已判定结果'],
 'of %(n)s decided pair, ties excluded': ['基于 %(n)s 个有胜负的配对，排除平局'],
 'of %(n)s judged pair, ties split': ['基于 %(n)s 个已评判的配对，平局平分'],
 'of %(n)s row decided in every repetition': ['基于 %(n)s 行每次重复都有判定的结果'],
 'of %(n)s row with a decided result': ['基于 %(n)s 行已判定结果'],
 'once per row': '每行一次',
 'only %(n)d rows decided on both sides, fewer than %(min)d': '两边都有判定的行只有 %(n)d 行，少于 %(min)d 行',
 'only in baseline': '仅在基线中',
 'only in candidate': '仅在候选中',
 'or': '或',
 'other version': '其他版本',
 'output and reason': '输出和理由',
 'outputs from': '输出来自',
 'outputs is not a list.': 'outputs 不是列表。',
 'paired rows': '配对行',
 'pairs won: B %(b)s, A %(a)s': '获胜的配对：B %(b)s，A %(a)s',
 'part %(number)s must be a Text, Image or Audio content object': '第 %(number)s 个部分必须是 Text、Image '
                                                                  '或 Audio 内容对象',
 'pass': '通过',
 'pass if score < %(t)s': '分数 < %(t)s 时通过',
 'pass if score ≥ %(t)s': '分数 ≥ %(t)s 时通过',
 'pass only if score = 0': '仅当分数 = 0 时通过',
 'pass only if score = 1': '仅当分数 = 1 时通过',
 'pass rate': '通过率',
 'pass rate dropped %(drop)s (%(p)s; the difference is at most %(bound)s, below %(limit)s)': '通过率下降 '
                                                                                             '%(drop)s（%(p)s；差值最多为 '
                                                                                             '%(bound)s，低于 '
                                                                                             '%(limit)s）',
 'pending': '待处理',
 'per assistant turn: %(label)s': '按助手轮次：%(label)s',
 'per_turn is true or false.': 'per_turn 为 true 或 false。',
 'position-inconsistent': '位置不一致',
 'probe_classname is not a name of at most %(max)s characters.': 'probe_classname 不是最多 %(max)s '
                                                                 '个字符的名称。',
 'provider default': '模型服务默认值',
 'queued': '排队中',
 're-scored': '已重新打分',
 'read-only': '只读',
 'ready': '就绪',
 'regression': '退化',
 'regression (%(p)s)': '退化（%(p)s）',
 'regressions': '退化',
 'remove': '移除',
 'removed': '删除',
 'repeat must be a whole number from 0 to %(repetitions)s.': 'repeat 必须是 0 到 %(repetitions)s '
                                                             '之间的整数。',
 'repetition %(k)s': '第 %(k)s 次重复',
 'repetition %(r)s': '第 %(r)s 次重复',
 'required': '必填',
 'results.csv for Excel': 'results.csv（Excel 用）',
 'revoked': '已吊销',
 'risk': '风险',
 'risk score': '风险分数',
 'role': '角色',
 'role must be one of %(roles)s, got %(got)s': 'role 必须是 %(roles)s 之一，实际为 %(got)s',
 "row %(n)s in the candidate's evalset version": '候选评测集版本中的第 %(n)s 行',
 'row %(n)s of %(name)s %(v)s ↗': '%(name)s %(v)s 的第 %(n)s 行 ↗',
 'rows': '行',
 'run, in the order they finished (newest right)': '运行，按完成顺序排列（最新的在右）',
 'running': '运行中',
 'score': '分数',
 'score ≤': '分数 ≤',
 'score ≥': '分数 ≥',
 'sensitivity': '灵敏度',
 'seq is not a whole number.': 'seq 不是整数。',
 'served from the response cache': '来自响应缓存',
 'show all %(n)s character': ['显示全部 %(n)s 个字符'],
 'skipped': '已跳过',
 'specificity': '特异度',
 'start from a template (an LLM judge or code), debug it on a few rows and submit a version.': '从模板开始（LLM '
                                                                                               '评估器或代码评估器），在几行数据上调试，然后提交一个版本。',
 'stored': '已保存',
 'strongly position-biased': '位置偏差严重',
 'success': '成功',
 'system': 'system',
 'tag %(tag)s is longer than %(max)s characters': '标签 %(tag)s 超过 %(max)s 个字符',
 'tags are not a valid JSON list: %(error)s': '标签不是有效的 JSON 列表：%(error)s',
 'tags is a non-empty list of tags.': 'tags 是非空的标签列表。',
 'tags must be a list of strings': '标签必须是字符串列表',
 'target': '评测对象',
 'target:': '评测对象：',
 'target: %(kind)s': '评测对象：%(kind)s',
 'target: %(output)s (%(type)s)': '评测对象：%(output)s（%(type)s）',
 'target: %(output)s (Text)': '评测对象：%(output)s（Text）',
 'test cases agree with the expected verdict': '个测试用例与期望判定一致',
 'text is %(size)s bytes; the limit is %(limit)s bytes': '文本为 %(size)s 字节，上限为 %(limit)s 字节',
 'the JSON on this line is nested too deeply': '这一行的 JSON 嵌套层级过深',
 'the conversation is %(size)s bytes of JSON; the limit is %(limit)s bytes': '该对话的 JSON 为 %(size)s '
                                                                             '字节，上限为 %(limit)s 字节',
 'the default model': '默认模型',
 'the description of %(name)r must be text': '%(name)r 的描述必须是文本',
 'the endpoint answered HTTP %(status)s: %(body)s': '端点返回 HTTP %(status)s：%(body)s',
 'the file has %(count)s fields; a header has at most %(max)s': '文件有 %(count)s 个字段；表头最多 %(max)s 个',
 'the file is empty: a CSV file needs a header row': '文件为空：CSV 文件需要一个表头行',
 'the header line is longer than %(limit)s bytes; a header has at most %(max)s fields': '表头行超过 '
                                                                                        '%(limit)s '
                                                                                        '字节；表头最多 '
                                                                                        '%(max)s '
                                                                                        '个字段',
 'the prompt is neither text nor a conversation.': '提示词既不是文本也不是对话。',
 "the prompt's turns are not a list.": '提示词的轮次不是列表。',
 'this column is required and the cell is empty': '此列为必填，但单元格为空',
 'this row has %(got)s cells but the header has %(width)s; check commas and quoting': '这一行有 '
                                                                                      '%(got)s '
                                                                                      '个单元格，但表头有 '
                                                                                      '%(width)s '
                                                                                      '个；请检查逗号和引号',
 'this run': '本次运行',
 'threshold': '阈值',
 'tie': '平局',
 'tie: %(n)s': '平局：%(n)s',
 'ties excluded': '排除平局',
 'ties split': '平局平分',
 'timeout': '超时',
 'to or from unknown': '变为或变自未知',
 'tokens': 'Token',
 'too few decided rows to correct other runs (needs 30)': '已判定的行太少，无法校正其他运行（需要 30 行）',
 'tool': 'tool',
 'tool call': '工具调用',
 'tool call %(id)s already has its result in message %(number)s': '工具调用 %(id)s 已在第 %(number)s '
                                                                  '条消息中有结果',
 'tool call %(index)s': '第 %(index)s 个工具调用',
 'tool call %(index)s id': '第 %(index)s 个工具调用的 id',
 'tool_calls must be a non-empty list of calls': 'tool_calls 必须是非空的调用列表',
 'turn %(n)s of %(total)s': '第 %(n)s / %(total)s 轮',
 'turn %(n)s: %(v)s': '第 %(n)s 轮：%(v)s',
 'turn_source is for a binding with per_turn.': 'turn_source 只用于带 per_turn 的绑定。',
 'type': '类型',
 'unchanged': '未变',
 'uncommitted changes': '有未提交的修改',
 'unknown': '未知',
 'unknown column %(field)s: map it to a column of the set, or ignore it': '未知列 '
                                                                          '%(field)s：请将其映射到评测集的某一列，或忽略它',
 'unknown field %(field)s; a message has %(keys)s': '未知字段 %(field)s；消息的字段为 %(keys)s',
 'unknown flip': '变为或变自未知',
 'unknown flips': '个变为或变自未知',
 'unknown rate %(rate)s above %(limit)s': '未知率 %(rate)s 高于 %(limit)s',
 'unknown rate rose from %(base)s to %(cand)s (%(to)d rows became unknown, %(back)d became decided; %(p)s)': '未知率从 '
                                                                                                             '%(base)s '
                                                                                                             '升至 '
                                                                                                             '%(cand)s（%(to)d '
                                                                                                             '行变为未知，%(back)d '
                                                                                                             '行变为已判定；%(p)s）',
 'unknown rows': '未知的行',
 'unknown rows: %(why)s': '未知的行：%(why)s',
 'user': 'user',
 'variable name': '变量名',
 'vs': '对比',
 'waiting (nothing finished in the last %(s)s s)': '等待中（最近 %(s)s 秒内没有完成任何调用）',
 'waiting for its target chunk': '等待其评测对象分块',
 'was %(s)s': '原为 %(s)s',
 'whole number from %(low)s to %(high)s': '%(low)s 到 %(high)s 之间的整数',
 'with': '与',
 'worse': '更差',
 'wrong content type %(actual)s: this column holds %(expected)s': '内容类型 %(actual)s 不符：此列存放 '
                                                                  '%(expected)s',
 'zero tolerance': '零容忍',
 '{{%(n)s}} is not a Text column of the evalset.': '{{%(n)s}} 不是评测集的 Text 列。',
 '{{%(name)s | %(filter_)s}}: use one of %(filters)s.': '{{%(name)s | %(filter_)s}}：请使用 '
                                                        '%(filters)s 之一。',
 '{{%(name)s}} is not a column of the evalset.': '{{%(name)s}} 不是评测集的列。',
 '{{%(name)s}}: secrets may be used in headers only.': '{{%(name)s}}：密钥只能用在请求头中。',
 '{{persona}}, {{goal}}, {{stop_phrase}}, {{max_turns}} or any {{column}}.': '{{persona}}、{{goal}}、{{stop_phrase}}、{{max_turns}} '
                                                                             '或任意 {{列名}}。',
 'Δ mean score (95%% CI)': 'Δ 平均分（95%% 置信区间）',
 'Δ pass rate (95%% CI)': 'Δ 通过率（95%% 置信区间）',
 '— choose a provider —': '— 选择模型服务 —',
 '— none —': '— 无 —',
 '— none: the simulated user starts': '— 无：由模拟用户先开口',
 '— not mapped —': '— 未映射 —',
 '— undo the correction': '— 撤销修正',
 '“%(name)s” deleted.': '已删除“%(name)s”。',
 '“%(name)s” deleted. You can restore it from the deleted list.': '已删除“%(name)s”。可以在已删除列表中恢复它。',
 '“%(name)s” leaves the library. Experiments that pinned its versions keep reading them, and you can restore it from the deleted list.': '“%(name)s”将从评估器库中移除。固定了其版本的实验仍可读取这些版本，你也可以在已删除列表中恢复它。',
 '“%(name)s” leaves the list. Experiments that pinned its versions keep reading them.': '“%(name)s”将从列表中移除。固定了其版本的实验仍可读取这些版本。',
 '“%(name)s” restored.': '已恢复“%(name)s”。',
 "▼ regression: against the evaluator's previous run here, more rows went pass → fail than fail → pass, with the one-sided exact McNemar test at p &lt; %(threshold)s (rows paired by item and repetition).": '▼ '
                                                                                                                                                                                                              '退化：与该评估器在此处的上一次运行相比，通过 '
                                                                                                                                                                                                              '→ '
                                                                                                                                                                                                              '未通过的行多于未通过 '
                                                                                                                                                                                                              '→ '
                                                                                                                                                                                                              '通过的行，且单侧精确 '
                                                                                                                                                                                                              'McNemar '
                                                                                                                                                                                                              '检验 '
                                                                                                                                                                                                              'p '
                                                                                                                                                                                                              '&lt; '
                                                                                                                                                                                                              '%(threshold)s（按数据项和重复配对）。',
 "● pass rate over the decided rows; band: its %(level)s interval as the run stored it (none below the run's minimum sample).": '● '
                                                                                                                                '已判定行的通过率；色带：运行保存的 '
                                                                                                                                '%(level)s '
                                                                                                                                '区间（低于运行的最小样本量时没有）。',
 "● pass rate over the decided rows; band: the interval each run stored (none below the run's minimum sample).": '● '
                                                                                                                 '已判定行的通过率；色带：每次运行保存的区间（低于运行的最小样本量时没有）。',
 '✅ Assay gate passed': '✅ Assay 门禁通过',
 '❌ Assay gate failed': '❌ Assay 门禁未通过'}
