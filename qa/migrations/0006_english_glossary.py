"""English workplace terms → the Japanese words the documents use.

Cross-lingual dense retrieval with the small offline model is weak (an English
question about paid leave ranked the 36協定 chunks first), and English words
match nothing in the Japanese keyword index. These entries let an English
question search, and the extractive provider quote, in the documents' own
words. Like the Japanese starting dictionary, reviewers and owners edit it in
the admin; an existing term is left as it is.
"""

from django.db import migrations

ENGLISH_GLOSSARY = {
    "paid leave": "有給休暇, 年次有給休暇",
    "annual leave": "年次有給休暇, 有給休暇",
    "paid holiday": "有給休暇",
    "vacation": "休暇, 有給休暇",
    "day off": "休暇, 有給休暇",
    "days off": "休暇, 有給休暇",
    "sick": "病気, 欠勤, 休暇",
    "absence": "欠勤",
    "late for work": "遅刻",
    "overtime": "時間外労働, 残業",
    "working hours": "勤務時間",
    "core time": "コアタイム",
    "lunch break": "昼休み, 休憩時間",
    "salary": "給与",
    "payday": "給与, 支給日",
    "pay day": "給与, 支給日",
    "paid on": "給与, 支払",
    "bonus": "賞与",
    "allowance": "手当",
    "commut": "通勤, 通勤手当",
    "expense": "経費, 経費精算",
    "reimburse": "精算, 経費精算",
    "receipt": "領収書",
    "business trip": "出張",
    "hotel": "宿泊, 宿泊費",
    "lodging": "宿泊, 宿泊費",
    "per diem": "日当",
    "daily allowance": "日当",
    "remote work": "リモートワーク, 在宅勤務",
    "work from home": "リモートワーク, 在宅勤務",
    "working from home": "リモートワーク, 在宅勤務",
    "telework": "リモートワーク, 在宅勤務",
    "password": "パスワード",
    "laptop": "PC, 貸与PC, 端末",
    "computer": "PC, 端末",
    "smartphone": "スマートフォン",
    "help desk": "ヘルプデスク, ITサポート",
    "helpdesk": "ヘルプデスク, ITサポート",
    "it support": "ITサポート, ヘルプデスク",
    "extension": "内線",
    "phone number": "内線, 電話",
    "harassment": "ハラスメント",
    "probation": "試用期間",
    "first day": "入社初日, 初日",
    "new employee": "新入社員, 入社",
    "new hire": "新入社員, 入社",
    "cafeteria": "社員食堂, 食堂",
    "canteen": "社員食堂, 食堂",
    "lunch": "昼食, 昼休み",
    "meal": "食事, 定食",
    "fire drill": "避難訓練",
    "evacuation": "避難",
    "parking": "駐車場",
    "childcare": "育児, 育児休業",
    "parental leave": "育児休業",
    "maternity": "産前産後休業, 出産",
    "nursing care": "介護, 介護休業",
    "health check": "健康診断",
    "medical checkup": "健康診断",
    "benefit": "福利厚生",
    "housing": "住宅手当",
    "condolence": "弔慰金",
    "personal data": "個人情報",
    "privacy": "個人情報",
    "deadline": "期限",
    "approval": "承認",
    "manager": "上長",
    "supervisor": "上長",
    "boss": "上長",
    "meeting room": "会議室",
    "id card": "社員証",
    "badge": "社員証",
    "visitor": "来訪者",
}


def add(apps, schema_editor) -> None:
    SynonymEntry = apps.get_model("qa", "SynonymEntry")
    for term, expansions in ENGLISH_GLOSSARY.items():
        SynonymEntry.objects.get_or_create(term=term, defaults={"expansions": expansions})


class Migration(migrations.Migration):
    dependencies = [("qa", "0005_citation_version")]
    operations = [migrations.RunPython(add, migrations.RunPython.noop)]
